/*
 * ofp_seeds: writes the seed corpus for fuzz_ofp — every sample message of
 * tests/unit/ofp_test_util.c, once in stream mode (leading 0x00) and once
 * in single-message mode (leading 0x01) — into the directory given.
 * Build and run: see the compile line in the fuzz_ofp.c report / README.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ofp_msg.h"
#include "ofp_test_util.h"

int main(int argc, char **argv)
{
    static uint8_t buf[65536];
    struct ofp_msg m;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    for (unsigned i = 0; ofp_test_sample(i, &m) == 0; i++) {
        size_t n = ofp_test_encode(&m, buf + 1, sizeof(buf) - 1);
        for (int mode = 0; mode < 2; mode++) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/ofp-%02u-%s-%d", argv[1], i,
                     ofp_msg_type_name(m.hdr.type) + 5, mode);
            FILE *fp = fopen(path, "wb");
            if (!fp) {
                perror(path);
                return 1;
            }
            buf[0] = (uint8_t)mode;
            if (fwrite(buf, 1, n + 1, fp) != n + 1) {
                perror(path);
                return 1;
            }
            fclose(fp);
        }
    }
    return 0;
}
