#!/usr/bin/env bash
# kytos_stress.sh with every switch on OpenFlow over TLS (ovs-pki
# certificates, ofcd on TLS only): the REST flood must not cost a TLS
# switch its channel either.
#
# usage: kytos_stress_tls.sh OFCD_BINARY CONFIG_FILE
KYTOS_STRESS_CHANNEL=ssl exec "$(dirname "$0")/kytos_stress.sh" "$@"
