// SPDX-License-Identifier: GPL-2.0
/* Parser of ebpfcount expressions; see parse.h for the grammar. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lex.h"
#include "parse.h"

struct parser {
	struct lexer ls;
	struct query *q;
	struct parse_error *err;
	jmp_buf fail;
};

/* Report an error at the current token and abandon the parse. */
static _Noreturn void error_at(struct parser *p, int pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	p->err->pos = pos;
	longjmp(p->fail, 1);
}

static const char *token_desc(struct parser *p)
{
	static char buf[48];

	switch (p->ls.tok) {
	case TK_EOF:
		return "end of expression";
	case TK_ERROR:
		snprintf(buf, sizeof(buf), "'%c'", p->ls.src[p->ls.tok_pos]);
		return buf;
	default:
		buf[0] = '\'';
		lex_text(&p->ls, buf + 1, sizeof(buf) - 2);
		strcat(buf, "'");
		return buf;
	}
}

static void expect_name(struct parser *p, const char *name)
{
	if (!lex_is(&p->ls, name))
		error_at(p, p->ls.tok_pos, "expected '%s', found %s", name, token_desc(p));
	lex_next(&p->ls);
}

/* prefix := '/' NUMBER, for address fields only */
static void prefix(struct parser *p, struct key *k)
{
	int pos = p->ls.tok_pos;

	lex_next(&p->ls);
	if (!k->field->max_prefix)
		error_at(p, pos, "'%s' takes no prefix length", k->field->name);
	if (p->ls.tok != TK_NUMBER)
		error_at(p, p->ls.tok_pos, "expected a prefix length, found %s", token_desc(p));
	if (p->ls.num < 1 || p->ls.num > k->field->max_prefix)
		error_at(p, p->ls.tok_pos, "prefix length of '%s' must be 1 to %d",
			 k->field->name, k->field->max_prefix);
	k->prefix = p->ls.num == k->field->max_prefix ? 0 : p->ls.num;
	lex_next(&p->ls);
}

/* key := FIELD [ '/' PREFIX ] */
static void key(struct parser *p)
{
	struct key *k = &p->q->keys[p->q->nkeys];
	char name[64];
	int i;

	if (p->ls.tok != TK_NAME)
		error_at(p, p->ls.tok_pos, "expected a field name, found %s", token_desc(p));
	if (p->q->nkeys == MAX_KEYS)
		error_at(p, p->ls.tok_pos, "at most %d keys", MAX_KEYS);
	lex_text(&p->ls, name, sizeof(name));
	k->field = field_find(name);
	k->pos = p->ls.tok_pos;
	if (!k->field)
		error_at(p, k->pos, "unknown field '%s' (see 'ebpfcount --list-fields')", name);
	for (i = 0; i < p->q->nkeys; i++)
		if (p->q->keys[i].field == k->field)
			error_at(p, k->pos, "field '%s' given twice", name);
	lex_next(&p->ls);
	if (p->ls.tok == TK_SLASH)
		prefix(p, k);
	p->q->nkeys++;
}

/* keylist := key { ',' key } */
static void keylist(struct parser *p)
{
	key(p);
	while (p->ls.tok == TK_COMMA) {
		lex_next(&p->ls);
		key(p);
	}
}

/* where := 'where' PCAP-FILTER: the rest of the expression */
static void where(struct parser *p)
{
	const char *rest = p->ls.src + p->ls.pos;

	while (isspace((unsigned char)*rest))
		rest++;
	if (!*rest)
		error_at(p, rest - p->ls.src, "expected a pcap filter after 'where'");
	p->q->filter = rest;
	p->q->filter_pos = rest - p->ls.src;
	p->ls.pos = strlen(p->ls.src);
	lex_next(&p->ls);
}

/* query := 'count' [ 'by' keylist ] [ 'where' PCAP-FILTER ] */
static void query(struct parser *p)
{
	expect_name(p, "count");
	if (lex_is(&p->ls, "by")) {
		lex_next(&p->ls);
		keylist(p);
	}
	if (lex_is(&p->ls, "where"))
		where(p);
	if (p->ls.tok != TK_EOF)
		error_at(p, p->ls.tok_pos, "expected 'by', 'where', ',' or end, found %s",
			 token_desc(p));
}

int parse_query(const char *src, struct query *q, struct parse_error *err)
{
	struct parser p = { .q = q, .err = err };

	memset(q, 0, sizeof(*q));
	memset(err, 0, sizeof(*err));
	if (setjmp(p.fail))
		return -1;
	lex_init(&p.ls, src);
	query(&p);
	return 0;
}
