/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GET /metrics over HTTP for Prometheus (libmicrohttpd, on a thread of
 * its own): the last exposition of metrics.h, in OpenMetrics when the
 * scraper prefers it (Accept: application/openmetrics-text), else in
 * the text format 0.0.4.
 *
 * Hostile peers: up to SERVE_CONNECTIONS connections, SERVE_PER_ADDRESS
 * from one address (a fleet's scrapers keep theirs alive); one idle for
 * SERVE_IDLE seconds is closed, and one whose request (headers and
 * answer) takes more than SERVE_DEADLINE seconds, from the connection's
 * start or the answer before it, is cut.  Every request of an interval is
 * served the one rendering of metrics_get().
 */
#ifndef EBPFCOUNT_SERVE_H
#define EBPFCOUNT_SERVE_H

#include <stddef.h>

#include "metrics.h"

#define SERVE_CONNECTIONS	256
#define SERVE_PER_ADDRESS	8
#define SERVE_IDLE		10
#define SERVE_DEADLINE		20

struct serve;

/*
 * Split "[ADDR:]PORT" (an IPv6 ADDR in brackets) into host ("" when there
 * is none) and port; -1 if it is not of that form.
 */
int serve_parse(const char *spec, char *host, size_t hostlen, char *port, size_t portlen);
/*
 * Does a request's Accept header (or NULL) choose OpenMetrics over the
 * text format?  By the media ranges' quality: q=0 is "not acceptable".
 */
int serve_openmetrics(const char *accept);
/*
 * Listen on host:port; host "": on the loopback addresses only, 127.0.0.1
 * and ::1 (if the host has IPv6); every address wants one said, 0.0.0.0
 * or :: (which takes IPv4 too).  NULL with err filled on failure.
 */
struct serve *serve_listen(const char *host, const char *port, char *err, size_t errlen);
/*
 * Serve m there, from a thread of its own, which starts with this one's
 * privileges: call it once they are dropped.  0, or -1 with err filled.
 */
int serve_start(struct serve *s, struct metrics *m, char *err, size_t errlen);
/* Stop serving (if started) and close the socket. */
void serve_stop(struct serve *s);

#endif
