#!/usr/bin/env python3
"""Checks coreprof's Chrome/Perfetto JSON timeline files.

Every file must parse as JSON on its own and name every rank's thread; every
flow event ("s"/"f") must lie inside an "X" slice of its own thread in the same
file; flow ids are used once per direction.  Options:
  --flows N    exactly N flow starts and N flow finishes over all files
  --causal     a message never arrives before it was sent (clocks aligned)
  --ranks N    thread_name metadata for ranks 0..N-1 in every file
"""
import bisect
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main(argv):
    files, want_flows, causal, ranks = [], None, False, None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--flows":
            want_flows = int(argv[i + 1]); i += 2
        elif a == "--ranks":
            ranks = int(argv[i + 1]); i += 2
        elif a == "--causal":
            causal = True; i += 1
        else:
            files.append(a); i += 1
    if not files:
        fail("no timeline files given")
    starts, finishes = {}, {}
    nslices = 0
    for path in files:
        try:
            with open(path) as f:
                doc = json.load(f)
        except Exception as e:  # noqa: BLE001 -- any parse error is a failure
            fail(f"{path}: not valid JSON: {e}")
        evs = doc.get("traceEvents")
        if not isinstance(evs, list):
            fail(f"{path}: no traceEvents list")
        names = {e["tid"] for e in evs if e.get("ph") == "M" and e.get("name") == "thread_name"}
        if ranks is not None and names != set(range(ranks)):
            fail(f"{path}: thread_name metadata for {sorted(names)}, expected 0..{ranks - 1}")
        slices = {}
        for e in evs:
            if e.get("ph") == "X":
                if e.get("pid") != 0 or e["dur"] < 0:
                    fail(f"{path}: bad slice {e}")
                slices.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
                nslices += 1
        # slices of one thread do not overlap (MPI calls of a rank do not nest):
        # the candidate for a time is the last slice starting at or before it
        starts_of = {}
        for tid in slices:
            slices[tid].sort()
            starts_of[tid] = [a for a, _ in slices[tid]]

        def inside_slice(tid, t):
            ss = starts_of.get(tid, [])
            k = bisect.bisect_right(ss, t + 1e-6) - 1
            while k >= 0:
                a, b = slices[tid][k]
                if a - 1e-6 <= t <= b + 1e-6:
                    return True
                if k > 0 and slices[tid][k - 1][1] < t - 1e-6:
                    break
                k -= 1
            return False

        for e in evs:
            ph = e.get("ph")
            if ph not in ("s", "f"):
                continue
            t = e["ts"]
            inside = inside_slice(e["tid"], t)
            if not inside:
                fail(f"{path}: flow {ph} id {e['id']} at ts {t} on tid {e['tid']} is not inside a slice")
            if ph == "f" and e.get("bp") != "e":
                fail(f"{path}: flow finish id {e['id']} does not bind to its enclosing slice (bp != e)")
            table = starts if ph == "s" else finishes
            if e["id"] in table:
                fail(f"{path}: flow id {e['id']} used twice for '{ph}'")
            table[e["id"]] = t
    if want_flows is not None and (len(starts) != want_flows or len(finishes) != want_flows):
        fail(f"{len(starts)} flow starts and {len(finishes)} finishes, expected {want_flows}")
    if set(starts) != set(finishes):
        fail("some flows have only one end")
    if causal:
        for k, t in starts.items():
            if finishes[k] + 1e-6 < t:
                fail(f"flow {k} arrives at {finishes[k]} before it was sent at {t}")
    print(f"ok: {len(files)} file(s), {nslices} slices, {len(starts)} flows")


if __name__ == "__main__":
    main(sys.argv)
