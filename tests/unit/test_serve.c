// SPDX-License-Identifier: GPL-2.0
/*
 * --listen's argument: serve_parse() splits [ADDR:]PORT or refuses it; the
 * Accept header: serve_openmetrics() chooses the format.
 */
#include <stdio.h>
#include <string.h>

#include "serve.h"
#include "tap.h"

static const struct {
	const char *spec, *host, *port;	/* host NULL: refused */
} cases[] = {
	{ "9108", "", "9108" },
	{ "1", "", "1" },
	{ "65535", "", "65535" },
	{ "127.0.0.1:9108", "127.0.0.1", "9108" },
	{ "localhost:80", "localhost", "80" },
	{ ":9108", "", "9108" },
	{ "[::1]:9108", "::1", "9108" },
	{ "[2001:db8::1]:443", "2001:db8::1", "443" },
	{ "0", NULL, NULL },
	{ "65536", NULL, NULL },
	{ "-1", NULL, NULL },
	{ "+80", NULL, NULL },
	{ "80x", NULL, NULL },
	{ "", NULL, NULL },
	{ "127.0.0.1:", NULL, NULL },
	{ "::1:9108", NULL, NULL },
	{ "[::1]", NULL, NULL },
	{ "[]:80", NULL, NULL },
	{ "[::1:80", NULL, NULL },
	{ "99999999999999999999", NULL, NULL },
	{ " 80", NULL, NULL },
	{ "127.0.0.1: 80", NULL, NULL },
	{ "0x50", NULL, NULL },
};

/* The Accept headers of content negotiation: OpenMetrics or the text format. */
static const struct {
	const char *accept;
	int om;
} accepts[] = {
	{ NULL, 0 },
	{ "", 0 },
	{ "*/*", 0 },
	{ "text/plain", 0 },
	{ "application/openmetrics-text", 1 },
	{ "Application/OpenMetrics-Text; version=1.0.0", 1 },
	/* Prometheus 2.x */
	{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
	  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", 1 },
	/* Prometheus asked for the text format first */
	{ "text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.9", 0 },
	/* q=0: not acceptable */
	{ "application/openmetrics-text;q=0", 0 },
	{ "application/openmetrics-text; q=0.0", 0 },
	{ "application/openmetrics-text;version=1.0.0;Q=0.000, */*", 0 },
	{ "application/openmetrics-text ; q=0 , text/plain;q=0.1", 0 },
	{ "text/plain;q=0, application/openmetrics-text;q=0.001", 1 },
	{ "text/*;q=0.5, application/openmetrics-text;q=0.5", 1 },
	{ "application/openmetrics-text;q=0.4, */*;q=0.5", 0 },
	{ "application/openmetrics-textile", 0 },
	{ "application/openmetrics-text;q=x", 0 },
	{ "application/openmetrics-text;q=2", 0 },
};

static void test_accept(void)
{
	size_t i;

	for (i = 0; i < sizeof(accepts) / sizeof(accepts[0]); i++)
		tap_okf(serve_openmetrics(accepts[i].accept) == accepts[i].om,
			 "Accept: %s: %s", accepts[i].accept ? accepts[i].accept : "(none)",
			 accepts[i].om ? "OpenMetrics" : "the text format");
}

int main(void)
{
	char host[64], port[8], name[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = serve_parse(cases[i].spec, host, sizeof(host), port, sizeof(port));

		snprintf(name, sizeof(name), "serve_parse('%s') %s", cases[i].spec,
			 cases[i].host ? "splits it" : "refuses it");
		if (!cases[i].host) {
			tap_ok(ret == -1, name);
			continue;
		}
		if (tap_ok(!ret && !strcmp(host, cases[i].host) && !strcmp(port, cases[i].port),
			    name) == 0)
			printf("#   got %d '%s' '%s'\n", ret, host, port);
	}
	test_accept();
	return tap_done();
}
