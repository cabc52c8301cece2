/* SPDX-License-Identifier: GPL-2.0 */
/* Lexer of ebpfcount expressions: names, numbers, ',' and '/'. */
#ifndef EBPFCOUNT_LEX_H
#define EBPFCOUNT_LEX_H

enum token {
	TK_EOF,
	TK_NAME,	/* field names and keywords: letters, digits, '.', '_', '-' */
	TK_NUMBER,
	TK_COMMA,
	TK_SLASH,
	TK_ERROR,	/* a character no token starts with */
};

struct lexer {
	const char *src;	/* the whole expression */
	int pos;		/* where the next token starts scanning */
	enum token tok;		/* the current token */
	int tok_pos;		/* its offset in src */
	int tok_len;
	long num;		/* value of a TK_NUMBER */
};

void lex_init(struct lexer *ls, const char *src);
/* Advance to the next token. */
void lex_next(struct lexer *ls);
/* Is the current token the name s? */
int lex_is(const struct lexer *ls, const char *s);
/* Copy the current token into buf (NUL-terminated, cut to size). */
void lex_text(const struct lexer *ls, char *buf, int size);

#endif
