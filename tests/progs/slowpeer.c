// SPDX-License-Identifier: GPL-2.0
/*
 * slowpeer: hostile HTTP clients for the exporter's tests (--listen).
 * Keeps N TCP connections from SRC to DST:PORT open for SECONDS, opening
 * a new one whenever the server closes one, each either a slowloris (a
 * request line, then a header line every 2 s, never the blank line), a
 * trickler (a whole GET /metrics, its answer read, then an empty line
 * every 2 s on the kept-alive connection, never a request line), or a
 * reader that sends GET /metrics and never reads the answer (a slot
 * whose connection closed opens its next one half a second later).  Prints
 * how many it opened, how many the server closed, and the most open at
 * once.  Guests only: the tests run it on a guest's loopback.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 4096

struct peer {
	int fd;
	int connected;
	double next;		/* the next header line, slowloris */
	double again;		/* closed: open a new one then */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_one(const struct sockaddr_in *src, const struct sockaddr_in *dst)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (const struct sockaddr *)src, sizeof(*src)) ||
	    (connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) && errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: slowpeer slowloris|trickle|noread N SRC DST PORT SECONDS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const char line[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
	static const char whole[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	static struct peer p[MAX_CONNS];
	static struct pollfd pf[MAX_CONNS];
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = src;
	struct rlimit rl = { MAX_CONNS + 64, MAX_CONNS + 64 };
	unsigned long opened = 0, closed = 0, most = 0, open_now;
	int slow, trickle, n, i;
	double end, t;
	static char buf[65536];

	if (argc != 7)
		usage();
	trickle = !strcmp(argv[1], "trickle");
	slow = trickle || !strcmp(argv[1], "slowloris");	/* reads what comes */
	n = atoi(argv[2]);
	if ((!slow && strcmp(argv[1], "noread")) || n < 1 || n > MAX_CONNS ||
	    inet_pton(AF_INET, argv[3], &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[4], &dst.sin_addr) != 1)
		usage();
	dst.sin_port = htons(atoi(argv[5]));
	end = now() + atof(argv[6]);
	setrlimit(RLIMIT_NOFILE, &rl);
	for (i = 0; i < n; i++)
		p[i].fd = -1;
	while ((t = now()) < end) {
		open_now = 0;
		for (i = 0; i < n; i++) {
			if (p[i].fd < 0 && t >= p[i].again) {
				p[i].fd = open_one(&src, &dst);
				p[i].connected = 0;
				opened += p[i].fd >= 0;
			}
			pf[i] = (struct pollfd){ .fd = p[i].fd, .events = !p[i].connected ? POLLOUT :
						 slow ? POLLIN | POLLRDHUP : POLLRDHUP };
			open_now += p[i].connected;
		}
		most = open_now > most ? open_now : most;
		poll(pf, n, 100);
		t = now();
		for (i = 0; i < n; i++) {
			if (p[i].fd < 0)
				continue;
			if (!p[i].connected && (pf[i].revents & (POLLOUT | POLLERR | POLLHUP))) {
				int err = 0;
				socklen_t len = sizeof(err);

				getsockopt(p[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
				if (err || send(p[i].fd, slow && !trickle ? line : whole,
						slow && !trickle ? sizeof(line) - 1 :
						sizeof(whole) - 1, MSG_NOSIGNAL) < 0) {
					close(p[i].fd);
					p[i].fd = -1;
					p[i].again = t + 0.5;
					continue;
				}
				p[i].connected = 1;
				p[i].next = t + 2;
				continue;
			}
			/* the server closed it (a non-reader never reads the answer) */
			if (p[i].connected && (pf[i].revents & (POLLHUP | POLLERR | POLLRDHUP) ||
					       ((pf[i].revents & POLLIN) && slow &&
						recv(p[i].fd, buf, sizeof(buf), 0) <= 0))) {
				close(p[i].fd);
				p[i].fd = -1;
				p[i].again = t + 0.5;
				closed++;
				continue;
			}
			if (p[i].connected && slow && t >= p[i].next) {
				if (send(p[i].fd, trickle ? "\r\n" : "X-a: b\r\n", trickle ? 2 : 8,
					 MSG_NOSIGNAL) < 0) {
					close(p[i].fd);
					p[i].fd = -1;
					p[i].again = t + 0.5;
					closed++;
					continue;
				}
				p[i].next = t + 2;
			}
		}
	}
	printf("opened %lu closed %lu most %lu\n", opened, closed, most);
	return 0;
}
