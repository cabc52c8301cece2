// SPDX-License-Identifier: GPL-2.0
/*
 * parse_query(): a table of expressions and what must come of them.  A
 * valid one gives its keys ("name" or "name/prefix", space-separated) and
 * its where text; an invalid one an error message (substring) at an exact
 * offset in the expression (ebpfcount prints it as column pos + 1, with a
 * caret under it).  Then every field of the table, alone as a key, with and
 * without prefix lengths.
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "tap.h"

struct pcase {
	const char *expr;
	const char *keys;	/* valid: the keys; NULL: invalid */
	const char *text;	/* valid: where text (NULL: none); invalid: message */
	int pos;		/* offset of the where text, or of the error */
};

#define OK(E, K)		{ E, K, NULL, 0 }
#define WHERE(E, K, W, P)	{ E, K, W, P }
#define BAD(E, P, M)		{ E, NULL, M, P }

#define NINE_KEYS "count by eth.src, eth.dst, eth.type, vlan.id, ip.src, ip.dst, " \
		  "ip.proto, ip.ttl, tcp.flags"

static const struct pcase cases[] = {
	/* valid */
	OK("count", ""),
	OK("count by ip.proto", "ip.proto"),
	WHERE("count by ip.src/24, tcp.dstport where tcp port 443",
	      "ip.src/24 tcp.dstport", "tcp port 443", 38),
	OK("  count   by  ip.proto  ", "ip.proto"),
	OK("count\tby\tip.src/24,tcp.dstport", "ip.src/24 tcp.dstport"),
	OK("count\nby ip.proto\n", "ip.proto"),
	OK("count by ip.src / 24 , tcp.dstport", "ip.src/24 tcp.dstport"),
	OK("count by ip.src/024", "ip.src/24"),
	OK("count by ip.src/1, ip.dst/31", "ip.src/1 ip.dst/31"),
	OK("count by ip.src/32", "ip.src"),		/* the whole address */
	OK("count by ipv6.src/1, ipv6.dst/64", "ipv6.src/1 ipv6.dst/64"),
	OK("count by ipv6.dst/127", "ipv6.dst/127"),
	OK("count by ipv6.dst/128", "ipv6.dst"),
	OK("count by eth.src, eth.dst, eth.type, vlan.id, ip.src, ip.dst, ip.proto, ip.ttl",
	   "eth.src eth.dst eth.type vlan.id ip.src ip.dst ip.proto ip.ttl"),
	WHERE("count where tcp", "", "tcp", 12),
	WHERE("count where   udp and port 53  ", "", "udp and port 53  ", 14),
	WHERE("count where\tudp", "", "udp", 12),
	WHERE("count by ip.proto where inbound", "ip.proto", "inbound", 24),
	WHERE("count by ip.src/24where tcp", "ip.src/24", "tcp", 24),
	/* the where text is libpcap's, whatever it holds */
	WHERE("count by ip.proto where a, b/c ; where", "ip.proto", "a, b/c ; where", 24),

	/* missing or misspelt 'count' */
	BAD("", 0, "expected 'count', found end of expression"),
	BAD("   ", 3, "expected 'count', found end of expression"),
	BAD("by ip.proto", 0, "expected 'count', found 'by'"),
	BAD("counts by ip.proto", 0, "expected 'count', found 'counts'"),
	BAD("COUNT", 0, "expected 'count', found 'COUNT'"),
	BAD("ip.proto", 0, "expected 'count', found 'ip.proto'"),
	BAD(",count", 0, "expected 'count', found ','"),

	/* key lists */
	BAD("count by", 8, "expected a field name, found end of expression"),
	BAD("count by ", 9, "expected a field name, found end of expression"),
	BAD("count by ip.proto,", 18, "expected a field name, found end of expression"),
	BAD("count by ,ip.proto", 9, "expected a field name, found ','"),
	BAD("count by ip.proto,,ip.ttl", 18, "expected a field name, found ','"),
	BAD("count by 42", 9, "expected a field name, found '42'"),
	BAD("count by /24", 9, "expected a field name, found '/'"),
	BAD("count by ip.srcc", 9, "unknown field 'ip.srcc' (see 'ebpfcount --list-fields')"),
	BAD("count by ip.proto, tcp.port", 19, "unknown field 'tcp.port'"),
	BAD("count by IP.PROTO", 9, "unknown field 'IP.PROTO'"),
	BAD("count by where tcp", 9, "unknown field 'where'"),
	BAD("count by ip.proto, ip.proto", 19, "field 'ip.proto' given twice"),
	BAD("count by ip.src/24, tcp.dstport, ip.src/16", 33, "field 'ip.src' given twice"),
	BAD(NINE_KEYS, 80, "at most 8 keys"),

	/* prefix lengths */
	BAD("count by ip.src/0", 16, "prefix length of 'ip.src' must be 1 to 32"),
	BAD("count by ip.src/33", 16, "prefix length of 'ip.src' must be 1 to 32"),
	BAD("count by ip.dst/99999999999999999999", 16, "must be 1 to 32"),
	BAD("count by ipv6.dst/0", 18, "prefix length of 'ipv6.dst' must be 1 to 128"),
	BAD("count by ipv6.dst/129", 18, "prefix length of 'ipv6.dst' must be 1 to 128"),
	BAD("count by ip.src/", 16, "expected a prefix length, found end of expression"),
	BAD("count by ip.src/x", 16, "expected a prefix length, found 'x'"),
	BAD("count by ip.src/-1", 16, "expected a prefix length, found '-'"),
	BAD("count by ip.src/ , ip.dst", 17, "expected a prefix length, found ','"),
	BAD("count by ip.src/24/8", 18, "expected 'by', 'where', ',' or end, found '/'"),
	BAD("count by ip.proto/8", 17, "'ip.proto' takes no prefix length"),
	BAD("count by tcp.dstport/16", 20, "'tcp.dstport' takes no prefix length"),
	BAD("count by eth.src/24", 16, "'eth.src' takes no prefix length"),
	BAD("count by frame.len /", 19, "'frame.len' takes no prefix length"),

	/* trailing garbage and stray characters */
	BAD("count ip.proto", 6, "expected 'by', 'where', ',' or end, found 'ip.proto'"),
	BAD("count by ip.proto ip.ttl", 18, "found 'ip.ttl'"),
	BAD("count by ip.src/24x", 18, "found 'x'"),
	BAD("count by ip.proto wherever", 18, "found 'wherever'"),
	BAD("count by ip.proto by ip.ttl", 18, "found 'by'"),
	BAD("count 42", 6, "found '42'"),
	BAD("count, ip.proto", 5, "found ','"),
	BAD("count by ip.proto;", 17, "expected 'by', 'where', ',' or end, found ';'"),
	BAD("count by ip.proto @", 18, "found '@'"),
	BAD("count by ip.proto where", 23, "expected a pcap filter after 'where'"),
	BAD("count where", 11, "expected a pcap filter after 'where'"),
	BAD("count where   ", 14, "expected a pcap filter after 'where'"),
	BAD("count where \t ", 14, "expected a pcap filter after 'where'"),
	BAD("count where\n", 12, "expected a pcap filter after 'where'"),
	BAD("count by ip.proto where \n ", 26, "expected a pcap filter after 'where'"),
};

/* expr with tabs and newlines escaped, for one-line test names. */
static const char *shown(const char *expr)
{
	static char buf[160];
	size_t len = 0;

	for (; *expr && len + 3 < sizeof(buf); expr++) {
		if (*expr == '\n' || *expr == '\t') {
			buf[len++] = '\\';
			buf[len++] = *expr == '\n' ? 'n' : 't';
		} else {
			buf[len++] = *expr;
		}
	}
	buf[len] = '\0';
	return buf;
}

/* The keys of q as the table writes them. */
static void keys_text(const struct query *q, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < q->nkeys && len < size; i++) {
		const struct key *k = &q->keys[i];

		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "", k->field->name);
		if (k->prefix && len < size)
			len += snprintf(buf + len, size - len, "/%d", k->prefix);
	}
}

/* Each key's pos points at its field name in the expression. */
static int key_positions_ok(const char *expr, const struct query *q)
{
	int i;

	for (i = 0; i < q->nkeys; i++) {
		const char *name = q->keys[i].field->name;

		if (strncmp(expr + q->keys[i].pos, name, strlen(name)))
			return 0;
	}
	return 1;
}

static void check_valid(const struct pcase *c)
{
	struct parse_error err;
	struct query q;
	char name[256], keys[256];
	int ret = parse_query(c->expr, &q, &err);
	int where_ok;

	snprintf(name, sizeof(name), "'%s' parses", shown(c->expr));
	if (!tap_ok(ret == 0, name)) {
		printf("#   error at %d: %s\n", err.pos, err.msg);
		return;
	}
	keys_text(&q, keys, sizeof(keys));
	snprintf(name, sizeof(name), "'%s': keys", shown(c->expr));
	tap_streq(keys, c->keys, name);
	snprintf(name, sizeof(name), "'%s': keys point into the expression",
		 shown(c->expr));
	tap_ok(key_positions_ok(c->expr, &q), name);
	if (c->text)
		where_ok = q.filter && !strcmp(q.filter, c->text) &&
			   q.filter_pos == c->pos && q.filter == c->expr + c->pos;
	else
		where_ok = !q.filter;
	snprintf(name, sizeof(name), "'%s': where %s%s%s at %d", shown(c->expr),
		 c->text ? "'" : "", c->text ? c->text : "(none)", c->text ? "'" : "", c->pos);
	if (!tap_ok(where_ok, name))
		printf("#   got %s at %d\n", q.filter ? q.filter : "(none)", q.filter_pos);
}

static void check_invalid(const struct pcase *c)
{
	struct parse_error err;
	struct query q;
	char name[256];
	int ret = parse_query(c->expr, &q, &err);

	snprintf(name, sizeof(name), "'%s': error at %d: %s", shown(c->expr), c->pos,
		 c->text);
	if (!tap_ok(ret == -1 && err.pos == c->pos && strstr(err.msg, c->text), name))
		printf("#   got %d, error at %d: %s\n", ret, err.pos, err.msg);
}

/* Every field alone as a key; prefix lengths exactly where allowed. */
static void check_field(const struct field *f)
{
	struct parse_error err;
	struct query q;
	char expr[96], name[160];
	int ret, max = f->max_prefix;

	snprintf(expr, sizeof(expr), "count by %s", f->name);
	ret = parse_query(expr, &q, &err);
	snprintf(name, sizeof(name), "field '%s' parses as a key", f->name);
	tap_ok(ret == 0 && q.nkeys == 1 && q.keys[0].field == f && !q.keys[0].prefix &&
		field_find(f->name) == f, name);

	snprintf(expr, sizeof(expr), "count by %s/%d", f->name, max ? max - 1 : 8);
	ret = parse_query(expr, &q, &err);
	snprintf(name, sizeof(name), "'%s' %s", expr, max ? "parses" : "fails: takes no prefix");
	if (max)
		tap_ok(ret == 0 && q.keys[0].prefix == max - 1, name);
	else
		tap_ok(ret == -1 && strstr(err.msg, "takes no prefix length"), name);

	if (!max)
		return;
	snprintf(expr, sizeof(expr), "count by %s/%d", f->name, max + 1);
	ret = parse_query(expr, &q, &err);
	snprintf(name, sizeof(name), "'%s' fails: prefix too long", expr);
	tap_ok(ret == -1 && strstr(err.msg, "must be 1 to"), name);
}

int main(void)
{
	const struct field *tab;
	size_t i;
	int n, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].keys)
			check_valid(&cases[i]);
		else
			check_invalid(&cases[i]);
	}
	tab = field_table(&n);
	tap_ok(n > MAX_KEYS, "the field table has more fields than a query may hold");
	for (j = 0; j < n; j++)
		check_field(&tab[j]);
	return tap_done();
}
