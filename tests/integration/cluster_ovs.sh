# What the cluster tests and benches ask Open vSwitch (sourced, after
# ovs_lib.sh): which controller each bridge reports as its master. Nodes
# are told apart by their subnet (10.66.K.2 is node K, scripts/cluster-lib.sh).
#
#   bridge_masters          "brN K" per master controller of each bridge,
#                           "brN none" for a bridge without one
#   one_master_each B [K]   all B bridges have exactly one master, none node K
#   master_counts           how many bridges nodes 1, 2, 3 master: "c1 c2 c3"
#   masters_spread B LIVE   one master each, none above ceil(B / LIVE)
#   most_masters            the node (1..3) that masters the most bridges
#   wait_until SECS CMD...  CMD every 0.1 s until it succeeds (0) or SECS pass
#   bridges_of K            the bridges node K masters now, "br3 br7 ..."
#   took_over_ms T0 K BRS   when the last of bridges BRS was confirmed to a
#                           node other than K (its ROLE_REPLY, as that node
#                           logged it), in ms after T0 (ns since the epoch)

bridge_masters() {
    local ctl br
    ctl=$(ovs_vsctl --format=csv --data=bare --no-headings --columns=_uuid,target,role \
          list controller) || return 1
    br=$(ovs_vsctl --format=csv --data=bare --no-headings --columns=name,controller \
         list bridge) || return 1
    awk -F, -v CTL="$ctl" '
        BEGIN { n = split(CTL, L, "\n")
                for (i = 1; i <= n; i++) { split(L[i], f, ","); t[f[1]] = f[2]; r[f[1]] = f[3] } }
        { m = 0; k = split($2, u, " ")
          for (i = 1; i <= k; i++)
              if (r[u[i]] == "master") { split(t[u[i]], a, "."); print $1, a[3]; m++ }
          if (!m) print $1, "none" }' <<<"$br"
}

one_master_each() {
    local m
    m=$(bridge_masters) || return 1
    [ "$(wc -l <<<"$m")" = "$1" ] && ! grep -q none <<<"$m" &&
        { [ -z "${2:-}" ] || ! grep -q " $2\$" <<<"$m"; }
}

master_counts() {
    local m k
    m=$(bridge_masters)
    for k in 1 2 3; do grep -c " $k\$" <<<"$m"; done | tr '\n' ' '
}

masters_spread() {
    local max=$((($1 + $2 - 1) / $2)) c
    one_master_each "$1" || return 1
    for c in $(master_counts); do [ "$c" -le $max ] || return 1; done
}

most_masters() {
    local c1 c2 c3 best=1
    read -r c1 c2 c3 <<<"$(master_counts)"
    [ "$c2" -gt "$c1" ] && best=2
    [ "$c3" -gt "$(eval echo "\$c$best")" ] && best=3
    echo $best
}

wait_until() {
    local end=$(($(date +%s%N) / 1000000 + $1 * 1000))
    shift
    while [ $(($(date +%s%N) / 1000000)) -lt $end ]; do
        "$@" && return 0
        sleep 0.1
    done
    "$@"
}

bridges_of() {
    bridge_masters | awk -v k="$1" '$2 == k { printf "%s ", $1 }'
}

took_over_ms() {
    python3 - "$1" "$2" "$CL_DIR" $3 <<'PY'
import datetime, re, sys
t0, victim, d, brs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
want = {"%016x" % (0x1000 + int(b[2:])) for b in brs}
first = {}
for k in "123":
    if k == victim:
        continue
    try:
        lines = open("%s/node%s.log" % (d, k), errors="replace").read().splitlines()
    except OSError:
        continue
    for l in lines:
        m = re.match(r"(\S+Z) INFO  cluster: switch ([0-9a-f]{16}): this node is now its master", l)
        if not m or m.group(2) not in want:
            continue
        ts = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ")
        ns = int(ts.replace(tzinfo=datetime.timezone.utc).timestamp() * 1e9)
        if ns >= t0 and (m.group(2) not in first or ns < first[m.group(2)]):
            first[m.group(2)] = ns
if len(first) < len(want):
    print("missing %d of %d" % (len(want) - len(first), len(want)), file=sys.stderr)
    sys.exit(1)
print((max(first.values()) - t0) // 1000000)
PY
}
