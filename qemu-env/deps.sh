#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages that building, booting and testing need.
# As root it runs apt-get; otherwise it prints the command and fails.
#   qemu-env/deps.sh [PKG...]   (with arguments: those packages instead)
set -eu

PKGS="linux-source-6.1 qemu-system-x86 busybox-static libpcap-dev libbpf-dev
libelf-dev zlib1g-dev iperf3 iproute2 flex bison bc libssl-dev cpio make gcc
libc6-dev xz-utils pkg-config tcpdump tshark bpftool perl python3
libmicrohttpd-dev prometheus mandoc libncurses-dev tmux iptables strace"
[ $# -gt 0 ] && PKGS="$*"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "ebpfcount: missing Debian packages:$missing" >&2
	echo "run as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
