/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser of ebpfcount expressions:
 *
 *   query   := 'count' [ 'by' keylist ] [ 'where' PCAP-FILTER ]
 *   keylist := key { ',' key }
 *   key     := FIELD [ '/' PREFIX ]
 *
 * The PCAP-FILTER is the rest of the expression, left to libpcap.
 */
#ifndef EBPFCOUNT_PARSE_H
#define EBPFCOUNT_PARSE_H

#include "field.h"

#define MAX_KEYS 8

struct key {
	const struct field *field;
	int prefix;		/* prefix length for addresses, 0: whole */
	int pos;		/* offset of the key in the expression */
};

struct query {
	struct key keys[MAX_KEYS];
	int nkeys;
	const char *filter;	/* points into the expression, or NULL */
	int filter_pos;
};

struct parse_error {
	int pos;		/* offset in the expression */
	char msg[160];
};

/* Parse src into q; on error fill err and return -1. */
int parse_query(const char *src, struct query *q, struct parse_error *err);

#endif
