#!/usr/bin/env python3
"""One row of the REST bench: parse hey's or wrk's text output and the
emulator's JSON report, print the table row, write the step's JSON.

usage: rest_bench_parse.py hey|wrk TOOL_OUTPUT EMU_JSON OFFERED FLOWS_PER_S OUT_JSON
"""
import json
import re
import sys


def wrk_ms(v):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", v)
    if not m:
        return None
    x = float(m.group(1))
    return {"us": x / 1000, "ms": x, "s": x * 1000, "m": x * 60000}[m.group(2)]


def parse_hey(text):
    r = {}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    r["req_s"] = float(m.group(1)) if m else None
    for p in (50, 90, 99):
        m = re.search(rf"\s{p}% in ([\d.]+) secs", text)
        r[f"p{p}_ms"] = float(m.group(1)) * 1000 if m else None
    m = re.search(r"Slowest:\s+([\d.]+) secs", text)
    r["max_ms"] = float(m.group(1)) * 1000 if m else None
    codes = {int(c): int(n) for c, n in re.findall(r"\[(\d+)\]\s+(\d+) responses", text)}
    r["status"] = codes
    r["non_2xx"] = sum(n for c, n in codes.items() if c // 100 != 2)
    r["errors"] = len(re.findall(r"^\s+\[\d+\]\s+Get|Post", text, re.M)) if "Error distribution" in text else 0
    return r


def parse_wrk(text):
    r = {}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    r["req_s"] = float(m.group(1)) if m else None
    for p in (50, 90, 99):
        m = re.search(rf"^\s+{p}%\s+(\S+)", text, re.M)
        r[f"p{p}_ms"] = wrk_ms(m.group(1)) if m else None
    m = re.search(r"^\s+Latency\s+\S+\s+\S+\s+(\S+)", text, re.M)
    r["max_ms"] = wrk_ms(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    r["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: (.*)", text)
    r["socket_errors"] = m.group(1) if m else ""
    return r


def main():
    tool, out, emu_json, offered, fps, dst = sys.argv[1:7]
    text = open(out).read()
    r = parse_hey(text) if tool == "hey" else parse_wrk(text)
    r["tool"] = tool
    r["offered"] = offered
    r["flows_s_installed"] = float(fps)
    try:
        e = json.load(open(emu_json))
        ec = e["times_us"]["echo_rtt"] or {}
        r["echo_p50_ms"] = ec.get("p50", 0) / 1000
        r["echo_p99_ms"] = ec.get("p99", 0) / 1000
        r["echo_max_ms"] = ec.get("max", 0) / 1000
        r["disconnects"] = e["disconnects"]["total"]
    except (OSError, KeyError, ValueError, TypeError):
        r.update(echo_p50_ms=None, echo_p99_ms=None, echo_max_ms=None, disconnects=None)
    json.dump(r, open(dst, "w"), indent=1)

    def f(v, fmt="{:.1f}"):
        return "-" if v is None else fmt.format(v)

    print(f"{offered + ('/s' if offered != 'max' else ''):<10} {f(r['req_s'], '{:.0f}'):>9} "
          f"{f(r['p50_ms'], '{:.2f}'):>9} {f(r['p90_ms'], '{:.2f}'):>9} {f(r['p99_ms'], '{:.2f}'):>9} "
          f"{f(r['max_ms']):>9} {r['non_2xx']:>11} {f(r['flows_s_installed'], '{:.0f}'):>12} "
          f"{f(r['echo_p50_ms'], '{:.2f}'):>12} {f(r['echo_p99_ms'], '{:.2f}'):>12} "
          f"{f(r['disconnects'], '{}'):>6}")


main()
