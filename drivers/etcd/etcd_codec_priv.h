/*
 * etcd_codec_priv: what the two answer decoders (etcd_resp.c for the
 * gateway's JSON, etcd_pb_resp.c for gRPC) share and nobody else calls.
 */
#ifndef OFCD_ETCD_CODEC_PRIV_H
#define OFCD_ETCD_CODEC_PRIV_H

/* printf into err (ETCD_ERR_MAX bytes); err may be NULL (nobody asks why). */
__attribute__((format(printf, 2, 3))) void etcd_seterr(char *err, const char *fmt, ...);

#endif
