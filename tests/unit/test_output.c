// SPDX-License-Identifier: GPL-2.0
/*
 * The printers: intervals built by hand (rows with keys in the hash
 * layout, see codegen.h) go through output_interval() into a memory
 * stream, and must give exactly the JSON line, the CSV lines (with the
 * header of output_begin()) or the human table of the case.  JSON and
 * CSV are the stable formats of ebpfcount(8).  Then json.h's writer:
 * strings, and nesting with its commas.
 *
 * A row's key values are written as text: "-" absent, "!" truncated,
 * addresses as inet_pton() or MAC text, others as the number the field's
 * bytes hold in network order (before the field's shift: DSCP 46 is
 * 0xb8).  The total is the sum of the rows and the overflow, as report.c
 * makes it, so a --top case shows that cut rows stay in the total.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "output.h"
#include "tap.h"

#define TIME 1796362856.280	/* 2026-12-04 05:40:56.280 UTC */
#define SECS 1.002
#define T "1796362856.280,1.002,"

struct rowspec {
	const char *k[MAX_KEYS];
	unsigned long long packets, bytes;
};

struct ocase {
	const char *name;
	const char *expr;
	const char *format;
	int numeric;
	size_t top;
	int final;
	struct rowspec rows[5];	/* up to the first with no packets */
	struct counter overflow;
	const char *want;
};

#define ROW(P, B, ...) { { __VA_ARGS__ }, P, B }
#define ROW0(P, B) { { NULL }, P, B }	/* no keys */

static const struct ocase cases[] = {
	/* JSON Lines */
	{ "json: protocols as numbers, absent key", "count by ip.proto", "json", 0, 0, 0,
	  { ROW(1200, 560000, "6"), ROW(30, 4000, "17"), ROW(4, 240, "-") }, { 0, 0 },
	  "{\"time\": 1796362856.280, \"interval\": 1.002, \"rows\": ["
	  "{\"ip.proto\": 6, \"packets\": 1200, \"bytes\": 560000}, "
	  "{\"ip.proto\": 17, \"packets\": 30, \"bytes\": 4000}, "
	  "{\"ip.proto\": null, \"missing\": \"absent\", \"packets\": 4, \"bytes\": 240}], "
	  "\"overflow\": {\"packets\": 0, \"bytes\": 0}, "
	  "\"total\": {\"packets\": 1234, \"bytes\": 564240}}\n" },
	{ "json: prefixes, absent and truncated keys", "count by ip.src/24, tcp.dstport",
	  "json", 0, 0, 0,
	  { ROW(10, 1000, "198.18.0.0", "443"), ROW(5, 500, "10.0.0.0", "-"),
	    ROW(2, 40, "!", "!"), ROW(1, 20, "-", "!") }, { 0, 0 },
	  "{\"time\": 1796362856.280, \"interval\": 1.002, \"rows\": ["
	  "{\"ip.src\": \"198.18.0.0/24\", \"tcp.dstport\": 443, \"packets\": 10, \"bytes\": 1000}, "
	  "{\"ip.src\": \"10.0.0.0/24\", \"tcp.dstport\": null, \"missing\": \"absent\", "
	  "\"packets\": 5, \"bytes\": 500}, "
	  "{\"ip.src\": null, \"tcp.dstport\": null, \"missing\": \"truncated\", "
	  "\"packets\": 2, \"bytes\": 40}, "
	  "{\"ip.src\": null, \"tcp.dstport\": null, \"missing\": \"truncated\", "
	  "\"packets\": 1, \"bytes\": 20}], "
	  "\"overflow\": {\"packets\": 0, \"bytes\": 0}, "
	  "\"total\": {\"packets\": 18, \"bytes\": 1560}}\n" },
	{ "json: IPv6, MAC, hex field as a number", "count by ipv6.src, ipv6.dst/64, eth.src, eth.type",
	  "json", 0, 0, 0,
	  { ROW(3, 300, "2001:db8::1", "2001:db8:0:1::", "52:54:00:12:34:99", "0x86dd") },
	  { 0, 0 },
	  "{\"time\": 1796362856.280, \"interval\": 1.002, \"rows\": ["
	  "{\"ipv6.src\": \"2001:db8::1\", \"ipv6.dst\": \"2001:db8:0:1::/64\", "
	  "\"eth.src\": \"52:54:00:12:34:99\", \"eth.type\": 34525, \"packets\": 3, \"bytes\": 300}], "
	  "\"overflow\": {\"packets\": 0, \"bytes\": 0}, "
	  "\"total\": {\"packets\": 3, \"bytes\": 300}}\n" },
	{ "json: flags, DSCP, lengths, VLAN as numbers",
	  "count by tcp.flags, ip.dsfield.dscp, frame.len, vlan.id, udp.dstport, icmp.type",
	  "json", 0, 0, 0,
	  { ROW(7, 10598, "0x012", "0xb8", "1514", "42", "-", "-") }, { 0, 0 },
	  "{\"time\": 1796362856.280, \"interval\": 1.002, \"rows\": ["
	  "{\"tcp.flags\": 18, \"ip.dsfield.dscp\": 46, \"frame.len\": 1514, \"vlan.id\": 42, "
	  "\"udp.dstport\": null, \"icmp.type\": null, \"missing\": \"absent\", "
	  "\"packets\": 7, \"bytes\": 10598}], "
	  "\"overflow\": {\"packets\": 0, \"bytes\": 0}, "
	  "\"total\": {\"packets\": 7, \"bytes\": 10598}}\n" },
	{ "json: final, overflow, --top 1 sums the others", "count by udp.dstport", "json", 0, 1, 1,
	  { ROW(5, 500, "53"), ROW(3, 300, "123") }, { 2, 200 },
	  "{\"time\": 1796362856.280, \"interval\": 1.002, \"final\": true, \"rows\": ["
	  "{\"udp.dstport\": 53, \"packets\": 5, \"bytes\": 500}], "
	  "\"others\": {\"keys\": 1, \"packets\": 3, \"bytes\": 300}, "
	  "\"overflow\": {\"packets\": 2, \"bytes\": 200}, "
	  "\"total\": {\"packets\": 10, \"bytes\": 1000}}\n" },
	{ "json: no keys", "count", "json", 0, 0, 0,
	  { ROW0(1234, 567890) }, { 0, 0 },
	  "{\"time\": 1796362856.280, \"interval\": 1.002, \"rows\": ["
	  "{\"packets\": 1234, \"bytes\": 567890}], "
	  "\"overflow\": {\"packets\": 0, \"bytes\": 0}, "
	  "\"total\": {\"packets\": 1234, \"bytes\": 567890}}\n" },
	{ "json: an empty interval", "count by ip.proto", "json", 0, 0, 0, { ROW0(0, 0) }, { 0, 0 },
	  "{\"time\": 1796362856.280, \"interval\": 1.002, \"rows\": [], "
	  "\"overflow\": {\"packets\": 0, \"bytes\": 0}, "
	  "\"total\": {\"packets\": 0, \"bytes\": 0}}\n" },

	/* CSV */
	{ "csv: prefixes, absent and truncated keys, overflow", "count by ip.src/24, tcp.dstport",
	  "csv", 0, 0, 0,
	  { ROW(10, 1000, "198.18.0.0", "443"), ROW(5, 500, "10.0.0.0", "-"),
	    ROW(2, 40, "!", "-") }, { 1, 60 },
	  "time,interval,final,kind,ip.src,tcp.dstport,missing,packets,bytes\n"
	  T "0,row,198.18.0.0/24,443,,10,1000\n"
	  T "0,row,10.0.0.0/24,,absent,5,500\n"
	  T "0,row,,,truncated,2,40\n"
	  T "0,overflow,,,,1,60\n"
	  T "0,total,,,,18,1600\n" },
	{ "csv: final, --top 1, IPv6, MAC, numbers even without -n",
	  "count by ipv6.dst, eth.dst, ip.proto, tcp.flags", "csv", 0, 1, 1,
	  { ROW(4, 400, "2001:db8::2", "ff:ff:ff:ff:ff:ff", "6", "0x002"),
	    ROW(2, 100, "::", "00:00:00:00:00:00", "17", "-") }, { 0, 0 },
	  "time,interval,final,kind,ipv6.dst,eth.dst,ip.proto,tcp.flags,missing,packets,bytes\n"
	  T "1,row,2001:db8::2,ff:ff:ff:ff:ff:ff,6,2,,4,400\n"
	  T "1,others,,,,,,2,100\n"
	  T "1,overflow,,,,,,0,0\n"
	  T "1,total,,,,,,6,500\n" },
	{ "csv: no keys", "count", "csv", 0, 0, 0, { ROW0(1234, 567890) }, { 0, 0 },
	  "time,interval,final,kind,missing,packets,bytes\n"
	  T "0,row,,1234,567890\n"
	  T "0,overflow,,0,0\n"
	  T "0,total,,1234,567890\n" },

	/* human */
	{ "human: names, absent, truncated, rates", "count by ip.proto", "human", 0, 0, 0,
	  { ROW(1200, 560000, "6"), ROW(30, 4000, "17"), ROW(4, 240, "-"), ROW(1, 60, "!") },
	  { 0, 0 },
	  "05:40:56.280  1.002 s  1235 packets  564300 bytes\n"
	  "  ip.proto         packets          bytes         rate       bit rate\n"
	  "  tcp                 1200         560000    1.20 kpps    4.47 Mbit/s\n"
	  "  udp                   30           4000       30 pps   31.94 kbit/s\n"
	  "  (absent)               4            240        4 pps    1.92 kbit/s\n"
	  "  (truncated)            1             60        1 pps      479 bit/s\n"
	  "\n" },
	{ "human: prefix, --top 1, overflow row", "count by ip.src/24, tcp.dstport", "human",
	  0, 1, 0,
	  { ROW(10, 1000, "198.18.0.0", "443"), ROW(5, 500, "10.0.0.0", "-") }, { 1, 60 },
	  "05:40:56.280  1.002 s  16 packets  1560 bytes\n"
	  "  ip.src              tcp.dstport      packets          bytes         rate       bit rate\n"
	  "  198.18.0.0/24       https                 10           1000       10 pps    7.98 kbit/s\n"
	  "  (1 more key)                               5            500        5 pps    3.99 kbit/s\n"
	  "  (overflow)                                 1             60        1 pps      479 bit/s\n"
	  "\n" },
	{ "human -n: numbers, final without rates",
	  "count by ip.proto, tcp.dstport, tcp.flags, eth.type", "human", 1, 0, 1,
	  { ROW(3, 180, "6", "443", "0x012", "0x0800") }, { 0, 0 },
	  "total since start: 3 packets, 180 bytes\n"
	  "  ip.proto     tcp.dstport  tcp.flags    eth.type         packets          bytes\n"
	  "  6            443          0x0012       0x0800                 3            180\n"
	  "\n" },
	{ "human: unnamed numbers, flag letters", "count by ip.proto, tcp.dstport, tcp.flags",
	  "human", 0, 0, 1,
	  { ROW(3, 180, "6", "40000", "0x012"), ROW(2, 100, "253", "22", "0x100"),
	    ROW(1, 50, "6", "53", "0"), ROW(1, 40, "6", "80", "0x800") }, { 0, 0 },
	  "total since start: 7 packets, 370 bytes\n"
	  "  ip.proto     tcp.dstport  tcp.flags        packets          bytes\n"
	  "  tcp          40000        S.                     3            180\n"
	  "  253          ssh          e                      2            100\n"
	  "  tcp          domain       none                   1             50\n"
	  "  tcp          http         0x0800                 1             40\n"
	  "\n" },
	{ "human: no keys", "count", "human", 0, 0, 0, { ROW0(1234, 567890) }, { 0, 0 },
	  "05:40:56.280  1.002 s  1234 packets  567890 bytes\n"
	  "                   packets          bytes         rate       bit rate\n"
	  "  all                 1234         567890    1.23 kpps    4.53 Mbit/s\n"
	  "\n" },
	/* Prometheus expositions (of final intervals: totals since start) */
	{ "prometheus: labels, missing keys, overflow series", "count by ip.src/24, tcp.dstport",
	  "prometheus", 0, 1, 1,
	  { ROW(10, 1000, "198.18.0.0", "443"), ROW(5, 500, "10.0.0.0", "-"),
	    ROW(2, 40, "!", "!") }, { 1, 60 },
	  "# HELP ebpfcount_packets_total Packets counted per key since ebpfcount started.\n"
	  "# TYPE ebpfcount_packets_total counter\n"
	  "ebpfcount_packets_total{ip_src=\"198.18.0.0/24\",tcp_dstport=\"443\"} 10\n"
	  "ebpfcount_packets_total{ip_src=\"10.0.0.0/24\",tcp_dstport=\"(absent)\","
	  "missing=\"absent\"} 5\n"
	  "ebpfcount_packets_total{ip_src=\"(truncated)\",tcp_dstport=\"(truncated)\","
	  "missing=\"truncated\"} 2\n"
	  "ebpfcount_packets_total{overflow=\"true\"} 1\n"
	  "# HELP ebpfcount_bytes_total Bytes counted per key since ebpfcount started.\n"
	  "# TYPE ebpfcount_bytes_total counter\n"
	  "ebpfcount_bytes_total{ip_src=\"198.18.0.0/24\",tcp_dstport=\"443\"} 1000\n"
	  "ebpfcount_bytes_total{ip_src=\"10.0.0.0/24\",tcp_dstport=\"(absent)\","
	  "missing=\"absent\"} 500\n"
	  "ebpfcount_bytes_total{ip_src=\"(truncated)\",tcp_dstport=\"(truncated)\","
	  "missing=\"truncated\"} 40\n"
	  "ebpfcount_bytes_total{overflow=\"true\"} 60\n" },
	{ "openmetrics: no keys; families without _total", "count", "openmetrics", 0, 0, 1,
	  { ROW0(1234, 567890) }, { 0, 0 },
	  "# HELP ebpfcount_packets Packets counted per key since ebpfcount started.\n"
	  "# TYPE ebpfcount_packets counter\n"
	  "ebpfcount_packets_total 1234\n"
	  "ebpfcount_packets_total{overflow=\"true\"} 0\n"
	  "# HELP ebpfcount_bytes Bytes counted per key since ebpfcount started.\n"
	  "# TYPE ebpfcount_bytes counter\n"
	  "ebpfcount_bytes_total 567890\n"
	  "ebpfcount_bytes_total{overflow=\"true\"} 0\n" },
	{ "prometheus -n: IPv6, MAC, numbers, dots in names", "count by ipv6.dst/64, eth.src, "
	  "ip.proto, tcp.flags, ip.dsfield.dscp", "prometheus", 1, 0, 1,
	  { ROW(4, 400, "2001:db8::", "52:54:00:12:34:99", "6", "0x012", "0xb8") }, { 0, 0 },
	  "# HELP ebpfcount_packets_total Packets counted per key since ebpfcount started.\n"
	  "# TYPE ebpfcount_packets_total counter\n"
	  "ebpfcount_packets_total{ipv6_dst=\"2001:db8::/64\",eth_src=\"52:54:00:12:34:99\","
	  "ip_proto=\"6\",tcp_flags=\"18\",ip_dsfield_dscp=\"46\"} 4\n"
	  "ebpfcount_packets_total{overflow=\"true\"} 0\n"
	  "# HELP ebpfcount_bytes_total Bytes counted per key since ebpfcount started.\n"
	  "# TYPE ebpfcount_bytes_total counter\n"
	  "ebpfcount_bytes_total{ipv6_dst=\"2001:db8::/64\",eth_src=\"52:54:00:12:34:99\","
	  "ip_proto=\"6\",tcp_flags=\"18\",ip_dsfield_dscp=\"46\"} 400\n"
	  "ebpfcount_bytes_total{overflow=\"true\"} 0\n" },
	{ "human: IPv6, MAC, large rates", "count by ipv6.src, eth.src", "human", 0, 0, 0,
	  { ROW(2500000, 3000000000ULL, "2001:db8::1", "52:54:00:12:34:99") }, { 0, 0 },
	  "05:40:56.280  1.002 s  2500000 packets  3000000000 bytes\n"
	  "  ipv6.src                                     eth.src                packets          bytes"
	  "         rate       bit rate\n"
	  "  2001:db8::1                                  52:54:00:12:34:99      2500000     3000000000"
	  "    2.50 Mpps   23.95 Gbit/s\n"
	  "\n" },
};

/* One key value of the table into its status byte and value bytes. */
static void encode(const struct key *k, const char *s, unsigned char *status, unsigned char *v)
{
	const struct field *f = k->field;
	unsigned int m[6];
	unsigned long long n;
	int i;

	if (!strcmp(s, "-") || !strcmp(s, "!")) {
		*status = *s == '-' ? KEY_ABSENT : KEY_TRUNCATED;
		return;
	}
	*status = KEY_PRESENT;
	if (f->fmt == FMT_IP4 || f->fmt == FMT_IP6) {
		inet_pton(f->fmt == FMT_IP4 ? AF_INET : AF_INET6, s, v);
	} else if (f->fmt == FMT_MAC) {
		sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]);
		for (i = 0; i < 6; i++)
			v[i] = m[i];
	} else {
		n = strtoull(s, NULL, 0);
		for (i = f->width - 1; i >= 0; i--, n >>= 8)
			v[i] = n;
	}
}

/* The printer's output for case c, read out at time. */
static char *print_case(const struct ocase *c, double time)
{
	static unsigned char keys[5][8 + 16 * MAX_KEYS];
	struct interval iv = { .time = time, .secs = SECS, .final = c->final };
	struct row rows[5];
	struct parse_error perr;
	struct output o = { .numeric = c->numeric, .top = c->top };
	struct expr x = { .text = c->expr };
	struct query *q = &x.q;
	struct layout *lay = &x.lay;
	char *text = NULL;
	size_t size, i;
	int j;

	if (parse_query(c->expr, q, &perr))
		return NULL;
	if (!strcmp(c->format, "prometheus") || !strcmp(c->format, "openmetrics"))
		output_init_exposition(&o, !strcmp(c->format, "openmetrics"));
	else if (output_init(&o, c->format))
		return NULL;
	layout_query(q, 0, lay);
	o.x = &x;
	o.nx = 1;
	memset(keys, 0, sizeof(keys));
	iv.rows = rows;
	iv.overflow = iv.total = c->overflow;
	for (i = 0; i < 5 && c->rows[i].packets; i++) {
		for (j = 0; j < q->nkeys; j++)
			encode(&q->keys[j], c->rows[i].k[j], &keys[i][j], keys[i] + lay->val_off[j]);
		rows[i] = (struct row){ keys[i], { c->rows[i].packets, c->rows[i].bytes } };
		iv.total.packets += c->rows[i].packets;
		iv.total.bytes += c->rows[i].bytes;
	}
	iv.nrows = i;
	o.f = open_memstream(&text, &size);
	output_begin(&o);
	output_interval(&o, &iv);
	fclose(o.f);
	return text;
}

struct jcase {
	const char *in, *want;
};

static const struct jcase jcases[] = {
	{ "", "\"\"" },
	{ "no such device", "\"no such device\"" },
	{ "bad expression at column 10: unknown field 'x'",
	  "\"bad expression at column 10: unknown field 'x'\"" },
	{ "a \"quoted\" word", "\"a \\\"quoted\\\" word\"" },
	{ "C:\\path\\", "\"C:\\\\path\\\\\"" },
	{ "two\nlines\r\tand a tab", "\"two\\u000alines\\u000d\\u0009and a tab\"" },
	{ "\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"" },
	{ "caf\xc3\xa9 \xe2\x9c\x93", "\"caf\xc3\xa9 \xe2\x9c\x93\"" },
};

static const struct jcase lcases[] = {
	{ "", "\"\"" },
	{ "198.18.0.0/24", "\"198.18.0.0/24\"" },
	{ "a \"quoted\" word", "\"a \\\"quoted\\\" word\"" },
	{ "C:\\path\\", "\"C:\\\\path\\\\\"" },
	{ "two\nlines\tand a tab", "\"two\\nlines\tand a tab\"" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
};

static void check_label_values(void)
{
	char *text, name[96];
	size_t size, i;
	FILE *f;

	for (i = 0; i < sizeof(lcases) / sizeof(lcases[0]); i++) {
		text = NULL;
		f = open_memstream(&text, &size);
		output_label_value(f, lcases[i].in);
		fclose(f);
		snprintf(name, sizeof(name), "output_label_value: case %zu", i + 1);
		tap_streq(text, lcases[i].want, name);
		free(text);
	}
}

static void check_json_strings(void)
{
	struct json j;
	char *text, name[96];
	size_t size, i;
	FILE *f;

	for (i = 0; i < sizeof(jcases) / sizeof(jcases[0]); i++) {
		text = NULL;
		f = open_memstream(&text, &size);
		json_open(&j, f);
		json_string(&j, jcases[i].in);
		fclose(f);
		snprintf(name, sizeof(name), "json_string: case %zu", i + 1);
		tap_streq(text, jcases[i].want, name);
		free(text);
	}
}

/* Objects in arrays in objects: a comma between members and elements only. */
static void check_json_nesting(void)
{
	char *text = NULL;
	struct json j;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	json_open(&j, f);
	json_object(&j);
	json_key(&j, "a");
	json_array(&j);
	json_array(&j);
	json_end(&j);
	json_object(&j);
	json_end(&j);
	json_uint(&j, 7);
	json_null(&j);
	json_end(&j);
	json_key(&j, "b");
	json_object(&j);
	json_end(&j);
	json_counter(&j, "c", 1, 60);
	json_key(&j, "d\"");
	json_bool(&j, 0);
	json_key(&j, "f");
	json_array(&j);		/* left open: json_close() closes both */
	json_string(&j, "e");
	json_close(&j);
	fclose(f);
	tap_streq(text, "{\"a\": [[], {}, 7, null], \"b\": {}, \"c\": {\"packets\": 1, "
		   "\"bytes\": 60}, \"d\\\"\": false, \"f\": [\"e\"]}\n",
		   "json.h: nesting, commas, a key escaped, json_close() closing");
	free(text);
}

/* A readout at .9996 s is the next second's .000, in every format. */
static void check_time_rounding(void)
{
	static const struct ocase c[] = {
		{ "human", "count", "human", 0, 0, 0, { ROW0(1, 60) }, { 0, 0 },
		  "05:40:57.000  1.002 s  1 packets  60 bytes\n" },
		{ "json", "count", "json", 0, 0, 0, { ROW0(1, 60) }, { 0, 0 },
		  "{\"time\": 1796362857.000, \"interval\": 1.002, \"rows\": [" },
		{ "csv", "count", "csv", 0, 0, 0, { ROW0(1, 60) }, { 0, 0 },
		  "time,interval,final,kind,missing,packets,bytes\n"
		  "1796362857.000,1.002,0,row,,1,60\n" },
	};
	char name[96];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *text = print_case(&c[i], 1796362856.9996);

		snprintf(name, sizeof(name), "%s: 1796362856.9996 is printed as ...57.000", c[i].name);
		if (!tap_ok(text && !strncmp(text, c[i].want, strlen(c[i].want)), name))
			printf("#   got: %s", text ? text : "(null)\n");
		free(text);
	}
}

static void check_init(void)
{
	struct output o = { 0 };

	tap_ok(output_init(&o, "yaml") == -1, "output_init: unknown format refused");
	tap_ok(!output_init(&o, "json") && output_is_json(&o), "output_init: json is JSON");
	tap_ok(!output_init(&o, "csv") && !output_is_json(&o), "output_init: csv is not JSON");
	tap_ok(!output_init(&o, "human") && !output_is_json(&o), "output_init: human is not JSON");
	tap_ok(!output_init(&o, "none") && !output_is_json(&o), "output_init: none is a format");
	tap_ok(output_init(&o, "prometheus") == -1 && output_init(&o, "openmetrics") == -1,
		"output_init: the expositions are not formats of -F");
}

/*
 * What a person reads of an expression (the error's caret line, the live
 * view's tabs): one line, control characters escaped, the caret's column
 * moved past the escapes before it.
 */
static void check_human(void)
{
	char buf[64], small[6];
	int at;

	at = output_human("count\twhere\nip", 11, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "count\\twhere\\nip") && at == 12,
		"output_human: \\t and \\n escaped, the caret at 12 for byte 11");
	at = output_human("a\x01" "b", -1, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "a\\x01b") && at == 6, "output_human: \\x01, 6 columns");
	output_human("ab\x01" "cd", -1, small, sizeof(small));
	tap_ok(!strcmp(small, "ab"), "output_human: cut before an escape that does not fit");
}

int main(void)
{
	size_t i;

	setenv("TZ", "UTC", 1);
	tzset();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = print_case(&cases[i], TIME);

		tap_streq(text, cases[i].want, cases[i].name);
		free(text);
	}
	check_time_rounding();
	check_json_strings();
	check_json_nesting();
	check_label_values();
	check_init();
	check_human();
	return tap_done();
}
