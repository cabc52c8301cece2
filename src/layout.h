/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of a program's counts: what its maps hold, as the code
 * generator writes them and as the maps' readout, the report, the
 * printers and the engines read them.  Nothing here generates code.
 *
 * A counts-map key holds one status byte per key field (present, absent,
 * truncated), then each field's bytes in network order: one- and two-byte
 * values at offsets of their size, wider ones at multiples of 4; the key
 * is a multiple of 4 bytes.  A single one-byte field is counted in a
 * per-CPU array instead, indexed by the byte, with two more entries for
 * absent and truncated.
 *
 * Any other key is counted in a hash table: the counts map is an array of
 * maps with one slot, holding one of two preallocated per-CPU hash tables;
 * the readout swaps in the empty one and drains the other, so every
 * interval starts with an empty table, and a key that finds the table full
 * is counted in the overflow map.  With a bound on the number of keys
 * (--max-keys), the tables have that many entries; without, they start
 * small and grow at readouts (maps.h).
 */
#ifndef EBPFCOUNT_LAYOUT_H
#define EBPFCOUNT_LAYOUT_H

#include <linux/bpf.h>

#include "parse.h"

enum key_status { KEY_PRESENT, KEY_ABSENT, KEY_TRUNCATED };

/* Maps the program refers to, by slot until the loader relocates them. */
enum map_slot { MAP_COUNTS, MAP_OVERFLOW, NR_MAPS };

/* Expressions of one program (-e): expression x's maps are in slots */
#define MAX_EXPRS 8
#define MAP_SLOT(x, map) (NR_MAPS * (x) + (map))

struct counter {		/* map value, per CPU */
	__u64 packets;
	__u64 bytes;
};

struct layout {
	int array;		/* counts map is a per-CPU array */
	int key_size;		/* bytes of a counts-map key */
	int row_size;		/* bytes of a key in the hash layout, as rows carry it */
	int max_entries;	/* entries of an array or of a hash's tables; 0: they grow */
	int tables;		/* a hash: counts map holds the live table */
	int val_off[MAX_KEYS];	/* offset of each field's bytes in a key */
	int nkeys;
};

/* An expression of a program: what it counts, and how its maps hold it. */
struct expr {
	const char *text;	/* as given */
	struct query q;
	struct layout lay;	/* expression i's maps are in slots MAP_SLOT(i, ...) */
};

#define ARRAY_ABSENT 256	/* array index of an absent one-byte key */
/* The longest key: a status byte and 16 value bytes per field */
#define LAYOUT_MAX_ROW (MAX_KEYS * (1 + FIELD_MAX_WIDTH))

/* Fill in the key layout of q; max_keys bounds a hash (0: its tables grow). */
void layout_query(const struct query *q, unsigned int max_keys, struct layout *lay);
/* The hash-layout key of array entry idx, into key (row_size bytes). */
void layout_key_from_index(const struct layout *lay, unsigned int idx, unsigned char *key);

/*
 * Replace the map slots (MAP_SLOT()) in the program's LD_IMM64 map loads
 * by the maps' file descriptors (or an engine's handles): fds[slot].
 */
void layout_relocate(struct bpf_insn *insns, int n, const int *fds);

#endif
