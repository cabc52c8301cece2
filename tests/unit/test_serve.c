// SPDX-License-Identifier: GPL-2.0
/* --listen's argument: serve_parse() splits [ADDR:]PORT or refuses it. */
#include <stdio.h>
#include <string.h>

#include "serve.h"
#include "unit.h"

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

int main(void)
{
	char host[64], port[8], name[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = serve_parse(cases[i].spec, host, sizeof(host), port, sizeof(port));

		snprintf(name, sizeof(name), "serve_parse('%s') %s", cases[i].spec,
			 cases[i].host ? "splits it" : "refuses it");
		if (!cases[i].host) {
			unit_ok(ret == -1, name);
			continue;
		}
		if (unit_ok(!ret && !strcmp(host, cases[i].host) && !strcmp(port, cases[i].port),
			    name) == 0)
			printf("#   got %d '%s' '%s'\n", ret, host, port);
	}
	return unit_done();
}
