/*
 * cfg_priv: the schema row shared by the parser (cfg.c), the table
 * (cfg_schema.c) and the unit test. Not for the rest of ofcd: other modules
 * read struct ofcd_config, never the schema.
 *
 * A row says where a key's value lives in struct ofcd_config (offsetof) and
 * how to parse, check and print it; cfg.c has one parser per type, so adding
 * a key is adding a row, never a new branch.
 */
#ifndef OFCD_CFG_PRIV_H
#define OFCD_CFG_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "cfg.h"

/* Longest accepted line, without its end of line. A quoted eal.args of
 * CFG_STR_MAX - 1 characters with every one escaped still fits, so what
 * cfg_print writes can always be read back. */
#define CFG_LINE_MAX 2048

/* Upper bound on rows (cfg.c keeps per-row state on the stack). */
#define CFG_KEYS_MAX 200

enum cfg_type {
    CFG_T_UINT,       /* off: unsigned integer of `size` bytes (1, 2, 4, 8); min..max */
    CFG_T_BOOL,       /* off: bool */
    CFG_T_STRING,     /* off: char[size]; length min..size-1, no control characters */
    CFG_T_IPV4_CIDR,  /* off: uint32_t ip, aux: uint8_t prefix; prefix in min..max */
    CFG_T_IPV4_PORT,  /* off: uint32_t ip, aux: uint16_t port; port in min..max */
    CFG_T_MAC,        /* off: uint8_t[6], aux: bool has_mac; "" means none */
    CFG_T_LCORE_LIST, /* off: uint16_t[size / 2], aux: unsigned count; ids min..max */
    CFG_T_RATE,       /* off: double in 0..1 */
    CFG_T_LOG_LEVEL,  /* off: int (enum ofcd_log_level) */
};

struct cfg_key {
    const char *section;
    const char *name;
    enum cfg_type type;
    const char *def;      /* default, as written in a config file (unquoted) */
    const char *help;     /* one line; the allowed values are appended from the type */
    uint64_t min;
    uint64_t max;
    size_t off;           /* offsetof the main field in struct ofcd_config */
    size_t size;          /* sizeof that field */
    size_t aux;           /* offsetof the companion field (prefix, port, has_mac, count) */
    bool test_only;       /* a test service's: with no_test_services, only def accepted */
};

extern const struct cfg_key cfg_keys[];
extern const size_t cfg_n_keys;

/* The cross-key rule between the message pools and the shares cut from
 * them (cfg_shares.c). */
int cfg_check_shares(struct ofcd_config *cfg, char *err, size_t errlen);
/* cfg_cluster.c: the [cluster] keys together (and the node id filled in). */
int cfg_check_cluster(struct ofcd_config *cfg, char *err, size_t errlen);

/* A key that was removed, and what an operator should do about it. */
struct cfg_removed {
    const char *key;              /* section.name */
    const char *why;
};
extern const struct cfg_removed cfg_removed_keys[];
extern const size_t cfg_n_removed_keys;

/*
 * Parse one value for row k into cfg. On success the field (and its
 * companion) is overwritten and 0 returned; on failure cfg is untouched,
 * -EINVAL is returned and why gets "must be ..." (with the specific reason
 * first when there is one). Exposed so the test can check every default.
 */
int cfg_parse_value(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                    char *why, size_t whylen);

/* Format the value of row k in cfg as it would appear in a config file
 * (strings quoted). Returns the length snprintf would have written. */
int cfg_format_value(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                     size_t len);

#endif
