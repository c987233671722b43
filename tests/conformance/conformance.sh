#!/bin/sh
# conformance.sh: decode every message ofcd's OpenFlow 1.3 encoder produces
# with two independent decoders and compare field by field.
#
#   conformance.sh GEN [KEEPDIR]
#
# GEN is ofp_conform_gen (built from ofp_conform_gen.c): it writes
# vectors.txt (bytes + expected values, format in its header comment) and
# ofp13.pcap. Each message's bytes go through `ovs-ofctl ofp-print HEX`;
# its text is cut into tokens at blanks and commas, and every expected
# token run must be there (a whole-token match: "priority=1" does not match
# "priority=10"). The capture goes through tshark's openflow_v4 dissector
# once (PDML); every expected field=value list must be found, in order, in
# the message's frame, and no frame may hold malformed or undecoded parts,
# bad checksums or non-zero padding.
#
# One line per message: "ok: NAME: N fields match (ovs-ofctl A, tshark B)"
# or "FAIL: NAME: label: what differs"; "note:" lines name what a decoder
# cannot check, "skip:" a message no available decoder can read. Exit 0
# when every check passes, 1 otherwise, 77 (skip) without ovs-ofctl.
# tshark is optional: without it its checks are skipped with a note.
# KEEPDIR keeps the vectors, capture and decoder output for a post-mortem.
# Written for ovs-ofctl 3.1 / tshark 4.0 (Debian 12): their text formats
# are the contract here.
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 GEN [KEEPDIR]" >&2
    exit 2
fi
gen=$1
if ! command -v ovs-ofctl >/dev/null 2>&1; then
    echo "skip: ovs-ofctl not installed (Debian: openvswitch-common)"
    exit 77
fi

if [ $# -ge 2 ]; then
    work=$2
    mkdir -p "$work" || exit 2
else
    work=$(mktemp -d) || exit 2
    trap 'rm -rf "$work"' EXIT
fi

gen_rc=0
"$gen" "$work" || gen_rc=$?
if [ ! -s "$work/vectors.txt" ]; then
    echo "FAIL: $gen wrote no vectors (exit $gen_rc)"
    exit 1
fi

# tshark: one "FRAME<TAB>name=show" line per field of every frame.
have_tshark=0
: > "$work/tshark.txt"
if command -v tshark >/dev/null 2>&1; then
    if tshark -n -r "$work/ofp13.pcap" -o ip.check_checksum:TRUE \
        -o tcp.check_checksum:TRUE -T pdml > "$work/ofp13.pdml" 2> "$work/tshark.err"; then
        have_tshark=1
        awk '
        function attr(s, a,    i, r) {
            i = index(s, " " a "=\"")
            if (!i) return ""
            r = substr(s, i + length(a) + 3)
            r = substr(r, 1, index(r, "\"") - 1)
            gsub(/&quot;/, "\"", r); gsub(/&apos;/, "\047", r)
            gsub(/&lt;/, "<", r); gsub(/&gt;/, ">", r); gsub(/&amp;/, "\\&", r)
            return r
        }
        /<packet>/ { frame++ }
        /<(field|proto) / {
            name = attr($0, "name")
            if (name == "") next
            printf "%d\t%s=%s\n", frame, name, attr($0, "show")
            # The raw bytes too, for fields shown as text.
            if (name ~ /^openflow_v4\./ && index($0, " value=\""))
                printf "%d\t%s@raw=%s\n", frame, name, attr($0, "value")
        }' "$work/ofp13.pdml" > "$work/tshark.txt"
    else
        echo "FAIL: tshark could not read the capture:"
        sed 's/^/    /' "$work/tshark.err"
        exit 1
    fi
else
    echo "note: tshark not installed: its checks are skipped"
fi

awk -v have_tshark="$have_tshark" -v tsfile="$work/tshark.txt" '
function flush_ovs_note(    i) {
    for (i = 1; i <= nnotes; i++)
        print "note: " name ": " notes[i]
    nnotes = 0
}

# Run ovs-ofctl on the message bytes, cut the text into tokens.
function ovs_decode(hex,    cmd, line, n, i, parts, first, rest) {
    ntok = 0
    ovs_text = ""
    ovs_err = ""
    first = 1
    cmd = "ovs-ofctl ofp-print " hex " 2>&1"
    while ((cmd | getline line) > 0) {
        ovs_text = ovs_text "    | " line "\n"
        # ovs log lines ("2024-01-01T00:00:00Z|00001|module|WARN|...")
        if (line ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[^|]*\|[0-9]+\|/)
            continue
        if (first && line ~ /decode error/)
            ovs_err = line
        first = 0
        gsub(/\(OF1\.3\)/, "OF1.3", line)
        while (match(line, /\(xid=0x[0-9a-f]+\):?/)) {
            rest = substr(line, RSTART + RLENGTH)
            line = substr(line, 1, RSTART - 1) " " \
                   substr(line, RSTART + 1, index(substr(line, RSTART), ")") - 2) " " rest
        }
        n = split(line, parts, /[ \t,]+/)
        for (i = 1; i <= n; i++)
            if (parts[i] != "")
                tok[++ntok] = parts[i]
    }
    close(cmd)
}

# Expected tokens want[1..ne] as a run in tok[]; header: only at the start.
function ovs_check(label, ne,    s, k, best, bests, last, got) {
    best = -1
    last = (label == "header") ? 1 : ntok - ne + 1
    for (s = 1; s <= last; s++) {
        for (k = 1; k <= ne && s + k - 1 <= ntok && tok[s + k - 1] == want[k]; k++)
            ;
        if (k > ne)
            return 1
        if (k - 1 > best) { best = k - 1; bests = s }
    }
    got = ""
    if (best > 0)
        for (k = 0; k <= best && bests + k <= ntok; k++)
            got = got (k ? " " : "") tok[bests + k]
    else if (label == "header")
        for (k = 1; k <= ne && k <= ntok; k++)
            got = got (k > 1 ? " " : "") tok[k]
    fail(label ": ovs-ofctl: expected \"" join(want, ne) "\"" \
         (got != "" ? ", found \"" got "\"" : ", not found"))
    return 0
}

# Whether frame entry e satisfies the expected "field=value" w ("field=*":
# any value; "%20" in w stands for a blank).
function ts_match(e, w,    nm) {
    if (w ~ /=\*$/) {
        nm = substr(w, 1, length(w) - 1)
        return index(e, nm) == 1
    }
    gsub(/%20/, " ", w)
    return e == w
}

# Expected field=value pairs want[1..ne], in order, in frame f; "header":
# exactly the first OpenFlow fields of the frame.
function ts_check(label, f, ne,    i, k, pos, seen, nm, v) {
    pos = 1
    if (label == "header")
        for (pos = 1; pos <= tsn[f]; pos++)
            if (tsf[f, pos] ~ /^openflow_v4\./) break
    for (k = 1; k <= ne; k++) {
        if (label == "header")
            while (pos <= tsn[f] && tsf[f, pos] ~ /^[^=]*@raw=/) pos++
        for (i = pos; i <= tsn[f] && !ts_match(tsf[f, i], want[k]); i++)
            if (label == "header") { i = tsn[f] + 1; break }
        if (i > tsn[f]) {
            nm = substr(want[k], 1, index(want[k], "=") - 1)
            seen = ""
            for (i = 1; i <= tsn[f]; i++)
                if (index(tsf[f, i], nm "=") == 1) {
                    v = substr(tsf[f, i], length(nm) + 2)
                    seen = seen (seen == "" ? "" : ", ") v
                }
            fail(label ": tshark: expected " want[k] " (in this order)" \
                 (seen == "" ? ", field absent" : ", frame shows " nm "=" seen))
            return 0
        }
        pos = i + 1
    }
    return 1
}

# Nothing malformed, undecoded or with a bad checksum in frame f.
function ts_sane(f,    i) {
    if (tsn[f] == 0) {
        fail("tshark: frame " f " missing")
        return
    }
    for (i = 1; i <= tsn[f]; i++) {
        if (tsf[f, i] ~ /^_ws\.malformed=/ && malformed_ok)
            continue
        if (tsf[f, i] ~ /^(_ws\.malformed=|openflow_v4\.[a-z_.]*undecoded[=@])/ ||
            tsf[f, i] ~ /^(ip|tcp)\.checksum\.status=0$/)
            fail("tshark: " tsf[f, i])
        # Padding is zero (OVS rejects some messages otherwise).
        if (tsf[f, i] ~ /^openflow_v4\.[a-z_0-9.]*\.pad[0-9]*=/ &&
            tsf[f, i] !~ /=(00:)*00$/)
            fail("tshark: padding not zero: " tsf[f, i])
    }
}

function join(a, n,    s, i) {
    s = a[1]
    for (i = 2; i <= n; i++) s = s " " a[i]
    return s
}

function fail(what) {
    fails[++nfails] = what
}

function finish(    i) {
    if (name == "") return
    if (have_tshark == 1 && frame > 0)
        ts_sane(frame)
    if (nfails == 0 && !encode_failed && n_ovs + n_ts == 0) {
        # Only tshark can read this one, and tshark is missing.
        printf "skip: %s: no decoder could check it\n", name
        total_skip++
    } else if (nfails == 0 && !encode_failed) {
        printf "ok: %s: %d fields match (ovs-ofctl %d, tshark %d)\n", name,
               n_ovs + n_ts, n_ovs, n_ts
    } else {
        for (i = 1; i <= nfails; i++)
            print "FAIL: " name ": " fails[i]
        if (ovs_text != "" && show_ovs)
            printf "  ovs-ofctl printed:\n%s", ovs_text
        total_fail++
    }
    flush_ovs_note()
    nmsg++
    name = ""
}

FILENAME == tsfile {          # tshark.txt
    split($0, a, "\t")
    tsf[a[1], ++tsn[a[1]]] = substr($0, length(a[1]) + 2)
    next
}

$1 == "msg" {
    finish()
    frame = $2
    name = $0
    sub(/^msg [0-9]+ /, "", name)
    nfails = 0; n_ovs = 0; n_ts = 0; ovs_ok = 1; ovs_text = ""; show_ovs = 0
    encode_failed = 0; nnotes = 0; malformed_ok = 0; ovs_err = ""; ntok = 0
    next
}
$1 == "tsmalformed_ok" { malformed_ok = 1; next }
$1 == "encodefail" {
    encode_failed = 1
    fail("the encoder refused the message (rc " $2 ")")
    next
}
$1 == "hex" {
    ovs_decode($2)
    next
}
$1 == "ovsskip" {
    ovs_ok = 0
    r = $0; sub(/^ovsskip /, "", r)
    notes[++nnotes] = "not decoded by ovs-ofctl: " r \
        (ovs_err != "" ? " (ovs-ofctl: " ovs_err ")" : "")
    next
}
$1 == "ovs" {
    if (!ovs_ok) next
    if (ovs_err != "") {
        # The message is broken for ovs-ofctl: one failure, not one a field.
        fail("ovs-ofctl could not decode the message: " ovs_err)
        ovs_ok = 0
        show_ovs = 1
        next
    }
    ne = split($0, parts, " ")
    for (i = 3; i <= ne; i++) want[i - 2] = parts[i]
    if (ovs_check($2, ne - 2)) n_ovs++
    else show_ovs = 1
    next
}
$1 == "ts" {
    if (have_tshark != 1) next
    ne = split($0, parts, " ")
    for (i = 3; i <= ne; i++) want[i - 2] = parts[i]
    if (ts_check($2, frame, ne - 2)) n_ts += ne - 2
    next
}
$1 == "note" {
    r = $0; sub(/^note /, "", r)
    notes[++nnotes] = r
    next
}
$1 == "end" { finish(); next }

END {
    finish()
    if (nmsg == 0) {
        print "FAIL: no message in the vectors"
        exit 1
    }
    printf "%d messages, %d failed, %d unchecked\n", nmsg, total_fail, total_skip
    exit total_fail ? 1 : 0
}
' "$work/tshark.txt" "$work/vectors.txt"
rc=$?
if [ "$gen_rc" -ne 0 ]; then
    echo "FAIL: $gen exited $gen_rc"
    rc=1
fi
exit $rc
