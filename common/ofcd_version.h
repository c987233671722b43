/* ofcd_version: the release, as --version prints it and a cluster node's
 * card carries it (nodes of different releases can tell). */
#ifndef OFCD_VERSION_H
#define OFCD_VERSION_H

#define OFCD_VERSION "0.1.0"

#endif
