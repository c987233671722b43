/*
 * fuzz_pcapr: libFuzzer target for the capture reader of ofswitch-replay
 * (tests/emu/emu_pcapr.c), which reads whatever file an operator hands it.
 * Every message it gives back must be whole: its length field its length,
 * at least a header, its direction one of the two.
 */
#include <stdint.h>
#include <stdlib.h>

#include "emu_pcapr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    struct emu_pcapr_session s;
    char why[128];

    if (emu_pcapr_read(data, len, 0, &s, why, sizeof(why)) < 0) {
        if (s.n || s.msg || !why[0])
            abort();                        /* freed, and said why */
        return 0;
    }
    for (size_t i = 0; i < s.n; i++)
        if (s.msg[i].len < 8 || (s.msg[i].data[2] << 8 | s.msg[i].data[3]) != s.msg[i].len ||
            (s.msg[i].dir != EMU_PCAPR_FROM_SWITCH && s.msg[i].dir != EMU_PCAPR_FROM_CONTROLLER))
            abort();
    emu_pcapr_free(&s);
    return 0;
}
