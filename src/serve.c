// SPDX-License-Identifier: GPL-2.0
/* /metrics over HTTP with libmicrohttpd; see serve.h. */
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve.h"

/* A server per listening socket: libmicrohttpd takes one each. */
struct serve {
	int n;
	struct MHD_Daemon *d[2];
	int fd[2];
};

static const char *const content_types[] = {
	"text/plain; version=0.0.4; charset=utf-8",
	"application/openmetrics-text; version=1.0.0; charset=utf-8",
};

int serve_parse(const char *spec, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *p = strrchr(spec, ':'), *h = spec;
	size_t n = p ? (size_t)(p - spec) : 0;
	char *end;
	long v;

	if (p && spec[0] == '[') {	/* [ADDR]:PORT */
		if (n < 3 || spec[n - 1] != ']')
			return -1;
		h++, n -= 2;
	} else if (p && memchr(spec, ':', n)) {
		return -1;		/* an IPv6 address wants brackets */
	}
	p = p ? p + 1 : spec;
	v = strtol(p, &end, 10);
	if (*end || end == p || *p < '0' || *p > '9' || v < 1 || v > 65535 ||
	    n >= hostlen || strlen(p) >= portlen)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, portlen, "%ld", v);
	return 0;
}

/* [s, s + *n) without the blanks around it. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && (*s == ' ' || *s == '\t'))
		s++, (*n)--;
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
		(*n)--;
	return s;
}

static int is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !strncasecmp(s, word, n);
}

/*
 * A media range's quality: its q parameter (RFC 9110: 0 to 1, 0 not
 * acceptable), 1 without one, 0 for a bad one.  s: the parameters, from
 * the first ';' up to the range's end.
 */
static double quality(const char *s, const char *end)
{
	double q = 1;

	while (s < end && *s == ';') {
		size_t n = strcspn(++s, ";,");
		const char *p = trim(s, &n);
		char *qend;

		if (n >= 2 && (*p == 'q' || *p == 'Q') && p[1] == '=') {
			q = strtod(p + 2, &qend);
			if (qend != p + n || p[2] < '0' || p[2] > '9' || !(q >= 0 && q <= 1))
				return 0;
		}
		s += strcspn(s, ";,");
	}
	return q;
}

/*
 * The best quality given OpenMetrics against the best given the text
 * format (text/plain, or the wildcards text/STAR and STAR/STAR); a tie
 * goes to OpenMetrics, which the scraper named.
 */
int serve_openmetrics(const char *accept)
{
	double om = 0, text = 0, q;
	const char *s = accept, *end;
	size_t n;

	while (s && *s) {
		end = s + strcspn(s, ",");
		n = strcspn(s, ";,");
		q = quality(s + n, end);
		s = trim(s, &n);
		if (is(s, n, "application/openmetrics-text"))
			om = q > om ? q : om;
		else if (is(s, n, "text/plain") || is(s, n, "text/*") || is(s, n, "*/*"))
			text = q > text ? q : text;
		s = *end ? end + 1 : end;
	}
	return om > 0 && om >= text;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static char index[] = "ebpfcount: the counts are at /metrics\n";
	static char not_found[] = "not found: the counts are at /metrics\n";
	static char bad_method[] = "only GET and HEAD\n";
	static char not_yet[] = "no counts yet\n";
	const char *accept;
	char *text;
	size_t len;
	int om;

	(void)version, (void)upload_data, (void)upload_data_size, (void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", bad_method,
			     strlen(bad_method), MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/plain", index, strlen(index),
			     MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, strlen(not_found),
			     MHD_RESPMEM_PERSISTENT);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	om = serve_openmetrics(accept);
	text = metrics_text(cls, om, &len);
	if (!text)	/* none yet, or no memory */
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", not_yet,
			     strlen(not_yet), MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, content_types[om], text, len, MHD_RESPMEM_MUST_FREE);
}

/*
 * A listening socket on host:port (an IPv6 address of every address, ::,
 * takes IPv4 too); -1 with err filled and errno set.
 */
static int listen_on(const char *host, const char *port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res, *ai;
	int fd = -1, e, one = 1, zero = 0;

	e = getaddrinfo(host, port, &hints, &res);
	if (e) {
		snprintf(err, errlen, "--listen %s: %s", host, gai_strerror(e));
		errno = EINVAL;
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s port %s: %s", host, port, strerror(e));
		errno = e;
	}
	return fd;
}

struct serve *serve_listen(const char *host, const char *port, char *err, size_t errlen)
{
	struct serve *s = calloc(1, sizeof(*s));
	char why[256];

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* no address: the loopback ones, 127.0.0.1 and ::1 if there is IPv6 */
	s->fd[0] = listen_on(*host ? host : "127.0.0.1", port, err, errlen);
	if (s->fd[0] < 0) {
		free(s);
		return NULL;
	}
	s->n = 1;
	if (*host)
		return s;
	s->fd[1] = listen_on("::1", port, why, sizeof(why));
	if (s->fd[1] >= 0) {
		s->n = 2;
	} else if (errno != EAFNOSUPPORT && errno != EADDRNOTAVAIL) {
		snprintf(err, errlen, "%s", why);
		close(s->fd[0]);
		free(s);
		return NULL;
	}
	return s;
}

int serve_start(struct serve *s, struct metrics *m, char *err, size_t errlen)
{
	sigset_t all, old;
	int i;

	/* The servers' threads take no signal: they are the main thread's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < s->n; i++) {
		s->d[i] = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, m,
					   MHD_OPTION_LISTEN_SOCKET, s->fd[i],
					   MHD_OPTION_CONNECTION_LIMIT, 16U,
					   MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
		if (!s->d[i])
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (i < s->n) {
		snprintf(err, errlen, "cannot start the HTTP server for --listen");
		return -1;
	}
	return 0;
}

void serve_stop(struct serve *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		if (s->d[i])
			MHD_stop_daemon(s->d[i]);	/* closes the listening socket */
		else
			close(s->fd[i]);
	}
	free(s);
}
