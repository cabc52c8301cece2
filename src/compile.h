/* SPDX-License-Identifier: GPL-2.0 */
/* A parsed query to a program: its where clause, key layout and code. */
#ifndef EBPFCOUNT_COMPILE_H
#define EBPFCOUNT_COMPILE_H

#include <stddef.h>

#include "codegen.h"

struct compile_opts {
	const char *ifname;	/* live handle for the where clause, or NULL */
	enum frame_mode mode;	/* how the program reads the frame (frame.h) */
	unsigned int max_keys;	/* bound of a hash's keys (--max-keys), 0: none */
};

/*
 * Compile q's where clause (on o->ifname's live handle, or offline when
 * NULL; see filter.h), lay out its key and generate its program into e
 * (which must be initialised).  Returns 0; 1 when libpcap refused the
 * where clause; -1 when the program could not be generated.  err says why.
 */
int compile_query(const struct query *q, const struct compile_opts *o, struct layout *lay,
		  struct emit *e, char *err, size_t errlen);

#endif
