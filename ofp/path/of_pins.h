/*
 * of_pins: which certificate each pinned switch must show (tls.pins_file),
 * so a host holding any certificate from the switch CA still cannot claim
 * a pinned dpid. One line per switch:
 *
 *     DPID  SHA256
 *
 * DPID as dpid.h reads it (00:00:00:00:00:00:10:01, 16 hex digits or
 * decimal); SHA256 the certificate's fingerprint, 64 hex digits, colons
 * allowed (openssl x509 -noout -fingerprint -sha256 -in cert.pem prints it
 * after "="). '#' starts a comment; blank lines are ignored. A dpid listed
 * twice is an error. Parsed once at start, read-only afterwards (the
 * workers share it); dpids not listed are not pinned.
 */
#ifndef OFCD_OF_PINS_H
#define OFCD_OF_PINS_H

#include <stddef.h>
#include <stdint.h>

struct of_pin {
    uint64_t dpid;
    uint8_t sha256[32];
};

struct of_pins {
    struct of_pin *v;          /* sorted by dpid */
    size_t n;
};

/* Parse text (NUL-terminated). 0 with *out filled, or -EINVAL with err
 * naming the line ("line 3: ..."), -ENOMEM. */
int of_pins_parse(const char *text, struct of_pins *out, char *err, size_t errlen);
void of_pins_free(struct of_pins *p);

/* The pin of dpid, or NULL when it is not pinned (p may be NULL). */
const struct of_pin *of_pins_find(const struct of_pins *p, uint64_t dpid);

/* "ab:cd:..." (95 characters and the NUL). */
#define OF_PINS_HEX_LEN 96
void of_pins_format_sha256(const uint8_t sha256[32], char out[OF_PINS_HEX_LEN]);

#endif
