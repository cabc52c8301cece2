/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer, as bpftool's json_writer: one place decides the
 * commas and the escaping.  Objects and arrays nest; a value inside an
 * object follows json_key().  ebpfcount writes one line per object:
 * members and elements are separated by ", ", a key from its value by
 * ": ", the layout ebpfcount(8) gives as stable.
 *
 *	struct json j;
 *	json_open(&j, f);
 *	json_object(&j);
 *	json_key(&j, "error");
 *	json_string(&j, msg);
 *	json_end(&j);
 *	json_close(&j);		(the newline)
 */
#ifndef EBPFCOUNT_JSON_H
#define EBPFCOUNT_JSON_H

#include <stdio.h>

#define JSON_DEPTH 8

struct json {
	FILE *f;
	int depth;			/* open objects and arrays */
	char end[JSON_DEPTH];		/* each one's closing character */
	unsigned int more;		/* bit d: depth d has a member already */
};

void json_open(struct json *j, FILE *f);
/* The end of the line: every object and array closed. */
void json_close(struct json *j);
void json_object(struct json *j);
void json_array(struct json *j);
/* Close the innermost object or array. */
void json_end(struct json *j);
/* An object's member: its key, then one value. */
void json_key(struct json *j, const char *name);
void json_string(struct json *j, const char *s);
void json_uint(struct json *j, unsigned long long v);
/* A time or a length in seconds: three decimals. */
void json_secs(struct json *j, double v);
void json_bool(struct json *j, int v);
void json_null(struct json *j);
/* A counter: {"packets": P, "bytes": B}. */
void json_counter(struct json *j, const char *name, unsigned long long packets,
		  unsigned long long bytes);

#endif
