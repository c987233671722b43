/*
 * ofcd_clock_ctl: ofcdctl's time/warp — move the process's clocks forward
 * (ofcd_clock_warp_us), so a test sees a lockout, a retention or a link
 * timeout expire without waiting for it. Registered in test builds only
 * (-Dtest_services=true): a product's clock is never moved by hand.
 */
#include "ofcd_clock.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "ofcd_ctl.h"

/* time/warp SECONDS[.FRACTION] */
static int time_warp(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    char *end;

    (void)arg;
    (void)argc;
    double s = strtod(argv[1], &end);
    if (end == argv[1] || *end || !(s > 0) || s > 86400) {
        ofcd_ctl_printf(out, "'%s' is not a number of seconds in (0, 86400]\n", argv[1]);
        return -EINVAL;
    }
    int rc = ofcd_clock_warp_us((uint64_t)(s * 1e6));
    if (rc < 0) {
        ofcd_ctl_printf(out, "the clocks are warped %" PRIu64 " s already; a day in all at most\n",
                        ofcd_clock_warp_offset_us() / 1000000u);
        return rc;
    }
    ofcd_ctl_printf(out, "warped %.3f s: %.3f s in all\n", s,
                    (double)ofcd_clock_warp_offset_us() / 1e6);
    return 0;
}

int ofcd_clock_ctl_register(struct ofcd_ctl *c)
{
    return ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
        "time/warp", "SECONDS", "TEST BUILDS: move ofcd's clocks forward SECONDS at once "
        "(timeouts, lockouts and retention expire as if that time had passed)", 1, 1,
        time_warp, NULL});
}
