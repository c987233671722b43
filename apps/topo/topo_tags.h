/*
 * topo_tags: an interface's VLAN pool as Kytos-ng's topology keeps it —
 * tag_ranges (which VLANs services may take on the interface, inclusive
 * ranges, default [[1, 4094]]) and special_tags (which of "untagged" and
 * "any" they may take, default both) — checked with Kytos' rules and
 * words, and what is available of them once the tags in use are taken out.
 *
 * The tags in use are the LLDP VLAN (topology.lldp_vlan) on the interfaces
 * of a switch whose LLDP flow is in place, as of_lldp takes it, and those
 * the circuits took (their UNIs' and S-VLANs: topo_rest's tags_used). Pure:
 * no JSON, no locks.
 */
#ifndef OFCD_TOPO_TAGS_H
#define OFCD_TOPO_TAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_VLAN_MIN 1u
#define TOPO_VLAN_MAX 4095u             /* Kytos' bound for a range (its default stops at 4094) */
#define TOPO_VLAN_DEFAULT_HI 4094u
/* Ranges of one interface: 1,024 ranges of 4-digit tags are ~13 KB of JSON,
 * within what one kept record may hold (TOPO_META_MAX_BYTES, topo_keep.h). */
#define TOPO_TAGS_MAX_RANGES 1024u

struct topo_tag_range {
    uint32_t lo, hi;                    /* inclusive */
};

/* Is r[0..n) a valid tag_ranges value? Kytos' rules: at least one range,
 * each lo <= hi, in ascending order, neither repeating nor touching the one
 * before (write [[10, 30]], not [[10, 20], [21, 30]]), within 1..4095.
 * 0, or -EINVAL with Kytos' sentence in why. */
int topo_tags_check(const struct topo_tag_range *r, size_t n, char *why, size_t len);

/* Does r[0..n) hold tag? */
bool topo_tags_has(const struct topo_tag_range *r, size_t n, uint32_t tag);

/* r[0..n) without tag, into out (room for n + 1): the count. */
size_t topo_tags_minus(const struct topo_tag_range *r, size_t n, uint32_t tag,
                       struct topo_tag_range *out);

/* A set of tags 0..4095, a bit each (tag t: word t / 64, bit t % 64). */
#define TOPO_TAGS_WORDS 64u
/* Every range of a set has a tag outside it on each side: at most half. */
#define TOPO_TAGS_SET_RANGES 2048u

/* r[0..n) into set (cleared first). */
void topo_tags_to_set(const struct topo_tag_range *r, size_t n, uint64_t set[TOPO_TAGS_WORDS]);
/* set as ascending ranges into out (room for TOPO_TAGS_SET_RANGES): the count. */
size_t topo_tags_from_set(const uint64_t set[TOPO_TAGS_WORDS], struct topo_tag_range *out);

/* Tags lo..hi (lo 0: none) set in set. */
void topo_tags_mark(uint64_t set[TOPO_TAGS_WORDS], unsigned lo, unsigned hi);

/* Uses of tags gathered into a set and the special tags' bits (special
 * NULL: not kept), for one interface: topo_tags_into is a visit of
 * topo_rest.h's (topo_tag_visit_fn) that adds each use it is handed,
 * wherever it is. */
struct topo_tags_used {
    uint64_t *set;
    unsigned *special;
};
void topo_tags_into(void *used, uint64_t dpid, uint32_t port, unsigned lo, unsigned hi,
                    unsigned special);

/* The special tags Kytos knows, in its default order. */
enum { TOPO_SPECIAL_UNTAGGED = 1u << 0, TOPO_SPECIAL_ANY = 1u << 1 };
#define TOPO_SPECIAL_DEFAULT (TOPO_SPECIAL_UNTAGGED | TOPO_SPECIAL_ANY)

/* One special tag's bit, or 0 when Kytos does not know it. */
unsigned topo_special_bit(const char *name);
const char *topo_special_name(unsigned bit);

#endif
