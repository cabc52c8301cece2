// SPDX-License-Identifier: GPL-2.0
/* A small JSON writer; see json.h. */
#include "json.h"

void json_open(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->more = 0;
}

void json_close(struct json *j)
{
	while (j->depth)
		json_end(j);
	fputc('\n', j->f);
}

/* Before a key, or a value of an array: the comma, unless it is the first. */
static void json_sep(struct json *j)
{
	unsigned int bit = 1u << j->depth;

	if (j->more & bit)
		fputs(", ", j->f);
	j->more |= bit;
}

/* Before a value: in an object, json_key() wrote the comma. */
static void json_value(struct json *j)
{
	if (!j->depth || j->end[j->depth - 1] != '}')
		json_sep(j);
}

static void json_push(struct json *j, char open, char close)
{
	json_value(j);
	fputc(open, j->f);
	if (j->depth + 1 < JSON_DEPTH) {
		j->end[j->depth++] = close;
		j->more &= ~(1u << j->depth);
	}
}

void json_object(struct json *j)
{
	json_push(j, '{', '}');
}

void json_array(struct json *j)
{
	json_push(j, '[', ']');
}

void json_end(struct json *j)
{
	if (j->depth)
		fputc(j->end[--j->depth], j->f);
}

static void json_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *name)
{
	json_sep(j);
	json_quoted(j->f, name);
	fputs(": ", j->f);
}

void json_string(struct json *j, const char *s)
{
	json_value(j);
	json_quoted(j->f, s);
}

void json_uint(struct json *j, unsigned long long v)
{
	json_value(j);
	fprintf(j->f, "%llu", v);
}

void json_secs(struct json *j, double v)
{
	json_value(j);
	fprintf(j->f, "%.3f", v);
}

void json_bool(struct json *j, int v)
{
	json_value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	json_value(j);
	fputs("null", j->f);
}

void json_counter(struct json *j, const char *name, unsigned long long packets,
		  unsigned long long bytes)
{
	json_key(j, name);
	json_object(j);
	json_key(j, "packets");
	json_uint(j, packets);
	json_key(j, "bytes");
	json_uint(j, bytes);
	json_end(j);
}
