/* rest_tls: see rest_tls.h. */
#include "rest_tls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "ofcd_pem.h"

int rest_tls_load(const struct rest_cfg *cfg, char **cert, char **key)
{
    bool has_cert = cfg->tls_cert && *cfg->tls_cert, has_key = cfg->tls_key && *cfg->tls_key;

    *cert = *key = NULL;
    if (!has_cert && !has_key)
        return 0;
    if (!has_cert || !has_key) {
        LOG_ERR("rest", "rest.tls_cert and rest.tls_key go together: %s is set, %s is not",
                has_cert ? "rest.tls_cert" : "rest.tls_key",
                has_cert ? "rest.tls_key" : "rest.tls_cert");
        return -EINVAL;
    }
    int rc = ofcd_pem_read("rest", "rest.tls_cert", cfg->tls_cert, false, cert);
    if (rc == 0 && (rc = ofcd_pem_read("rest", "rest.tls_key", cfg->tls_key, true, key)) < 0) {
        free(*cert);
        *cert = NULL;
    }
    return rc;
}
