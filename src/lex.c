// SPDX-License-Identifier: GPL-2.0
/* Lexer of ebpfcount expressions; see lex.h. */
#include <ctype.h>
#include <string.h>

#include "lex.h"

void lex_init(struct lexer *ls, const char *src)
{
	memset(ls, 0, sizeof(*ls));
	ls->src = src;
	lex_next(ls);
}

static int is_name_char(int c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '-';
}

static void read_number(struct lexer *ls)
{
	const char *s = ls->src + ls->pos;

	ls->num = 0;
	while (isdigit((unsigned char)*s) && ls->num < 100000)
		ls->num = ls->num * 10 + (*s++ - '0');
	while (isdigit((unsigned char)*s))
		s++;
	ls->tok = TK_NUMBER;
	ls->pos = s - ls->src;
}

static void read_name(struct lexer *ls)
{
	while (is_name_char((unsigned char)ls->src[ls->pos]))
		ls->pos++;
	ls->tok = TK_NAME;
}

void lex_next(struct lexer *ls)
{
	unsigned char c;

	while (isspace((unsigned char)ls->src[ls->pos]))
		ls->pos++;
	ls->tok_pos = ls->pos;
	c = ls->src[ls->pos];
	if (!c)
		ls->tok = TK_EOF;
	else if (isdigit(c))
		read_number(ls);
	else if (isalpha(c) || c == '_')
		read_name(ls);
	else {
		ls->pos++;
		ls->tok = c == ',' ? TK_COMMA : c == '/' ? TK_SLASH : TK_ERROR;
	}
	ls->tok_len = ls->pos - ls->tok_pos;
}

int lex_is(const struct lexer *ls, const char *s)
{
	return ls->tok == TK_NAME && (int)strlen(s) == ls->tok_len &&
	       !strncmp(ls->src + ls->tok_pos, s, ls->tok_len);
}

void lex_text(const struct lexer *ls, char *buf, int size)
{
	int n = ls->tok_len < size - 1 ? ls->tok_len : size - 1;

	memcpy(buf, ls->src + ls->tok_pos, n);
	buf[n] = '\0';
}
