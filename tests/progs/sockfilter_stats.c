// SPDX-License-Identifier: GPL-2.0
/*
 * Attach the first program of an object (a socket filter compiled from C,
 * tests/bench/c) to an AF_PACKET socket on an interface until SIGINT or
 * SIGTERM, then print the kernel's statistics of it (kernel.bpf_stats_enabled
 * must be 1): the floor next to which tests/bench/codegen.sh measures
 * ebpfcount's own programs live.
 *
 *   sockfilter_stats IFNAME FILE.bpf.o
 *
 * Prints "attached" once the socket is bound, then at the end
 * "stats RUNS NS".  Must run as root in a guest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd, sock;

	if (argc != 3) {
		fprintf(stderr, "usage: sockfilter_stats IFNAME FILE.bpf.o\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	a.sll_ifindex = (int)if_nametoindex(argv[1]);
	obj = bpf_object__open_file(argv[2], NULL);
	if (!a.sll_ifindex || !obj || bpf_object__load(obj)) {
		fprintf(stderr, "sockfilter_stats: cannot load %s for %s\n", argv[2], argv[1]);
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	fd = prog ? bpf_program__fd(prog) : -1;
	sock = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0 || sock < 0 ||
	    setsockopt(sock, SOL_SOCKET, SO_ATTACH_BPF, &fd, sizeof(fd)) ||
	    bind(sock, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "sockfilter_stats: cannot attach: %s\n", strerror(errno));
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "sockfilter_stats: no program info: %s\n", strerror(errno));
		return 1;
	}
	printf("stats %llu %llu\n", (unsigned long long)info.run_cnt,
	       (unsigned long long)info.run_time_ns);
	return 0;
}
