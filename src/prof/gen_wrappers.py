#!/usr/bin/env python3
"""Generate coreprof's PMPI wrappers from corempi's include/mpi.h.

The CM_API_FN(ret, Name, (params)) lines are the one list of MPI functions.
What each wrapper records (peer, bytes, tag, communicator, request) follows from
the *parameter names* through the small rule table below -- no per-function code.

  gen_wrappers.py MPI_H OUT.c [--names OUT_names.h] [--probe-cc "mpicc.openmpi"]

With --probe-cc the generated file is compiled (and linked) with that compiler;
functions the target MPI lacks or declares differently (const, types) are
dropped and the file regenerated until it builds.  The dropped names are
listed at the top of OUT.c.
"""
import os
import re
import subprocess
import sys
import tempfile

# Written by hand in prof_env.c / prof_pcontrol.c (they start/stop the profiler).
HANDWRITTEN = {"Init", "Init_thread", "Finalize", "Abort", "Pcontrol"}

# Collectives (their nonblocking "I" forms are found by prefix).
COLLECTIVES = {
    "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter",
    "Scatterv", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw",
    "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan",
    "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall",
    "Neighbor_alltoallv", "Neighbor_alltoallw",
}

# Calls that complete requests: how to find what completed.
COMPLETIONS = {
    # name: (count expr or None for a single request, kind)
    "Wait": "one", "Test": "one_flag",
    "Waitall": "all", "Testall": "all_flag",
    "Waitany": "any", "Testany": "any_flag",
    "Waitsome": "some", "Testsome": "some",
}

# Polls: calls a program makes in a loop until something happened.  An
# unsuccessful one (the condition below) joins the open fold of identical
# unsuccessful polls (prof_record.h, cm_prof_fold_*); the key says "identical".
POLLS = {
    "Iprobe": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, cm_prof_fold_source_tag(source, tag), CM_PROF_KEY(comm))"),
    "Improbe": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, cm_prof_fold_source_tag(source, tag), CM_PROF_KEY(comm))"),
    "Request_get_status": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, CM_PROF_KEY(request), 0)"),
    "Test": ("*flag == 0", "cm_prof_fold_key({id}, cm_ra_, CM_PROF_KEY(cm_req_), 0)"),
    "Testany": ("*flag == 0", "cm_prof_fold_key_reqs({id}, cm_ra_, cm_reqs_, count)"),
    "Testall": ("*flag == 0", "cm_prof_fold_key_reqs({id}, cm_ra_, cm_reqs_, count)"),
    "Testsome": ("*outcount == 0", "cm_prof_fold_key_reqs({id}, cm_ra_, cm_reqs_, incount)"),
}

# Probes look at a message without moving it: 0 bytes (the receive records them).
PROBES = {"Probe", "Iprobe", "Mprobe", "Improbe"}

# Parameter-name rules: first match wins.
PEER_RULES = [("dest", "CPT_F_SEND"), ("source", "CPT_F_RECV"), ("root", "CPT_F_ROOT")]
TAG_NAMES = ["tag", "sendtag"]
COUNT_TYPE_PAIRS = [("count", "datatype"), ("sendcount", "sendtype"), ("recvcount", "recvtype")]
COMM_NAMES = ["comm", "comm_old"]

API_RE = re.compile(r"^CM_API_FN\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*\((.*)\)\)\s*$")


class Param:
    def __init__(self, text):
        self.text = text.strip()
        m = re.match(r"^(.*?)(\w+)\s*((?:\[[^\]]*\])*)$", self.text)
        if self.text in ("void", "...") or not m:
            self.name = None
            self.type = self.text
            return
        self.name = m.group(2)
        self.type = (m.group(1) + " " + m.group(3)).strip()

    def is_scalar_int(self):
        return self.type == "int"

    def is_scalar_count(self):
        """An element count: int, or MPI_Count in the large-count (_c) forms."""
        return self.type in ("int", "MPI_Count")

    def is_count_array(self):
        return " ".join(self.type.split()) in ("const int []", "const MPI_Count []")


class Func:
    def __init__(self, ret, name, params):
        self.ret = ret
        self.name = name
        self.params_text = params
        self.params = [] if params.strip() == "void" else [Param(p) for p in split_params(params)]
        self.by_name = {p.name: p for p in self.params if p.name}

    def has(self, n):
        return n in self.by_name

    def arg_names(self):
        return ", ".join(p.name for p in self.params)


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def read_api(path):
    funcs = []
    with open(path) as f:
        for line in f:
            m = API_RE.match(line.strip())
            if m:
                funcs.append(Func(m.group(1), m.group(2), m.group(3)))
    return funcs


def is_collective(f):
    n = f.name
    return n in COLLECTIVES or (n.startswith("I") and n[1:] in COLLECTIVES) or (
        n.startswith("Ineighbor_") and ("Neighbor_" + n[10:]) in COLLECTIVES)


def creates_request(f):
    p = f.by_name.get("request")
    return p is not None and p.type == "MPI_Request *" and f.name not in COMPLETIONS \
        and f.name not in ("Start", "Request_free", "Cancel", "Request_get_status")


def recv_status(f):
    """A non-const status that tells the matched source (Recv, Probe, Mrecv, Sendrecv...)."""
    p = f.by_name.get("status")
    return p is not None and p.type == "MPI_Status *" and (f.has("source") or f.has("message"))


def bytes_expr(f):
    """count * type size, using the first scalar (count, type) pair; MPI_IN_PLACE aware.
    A probe moves no bytes (the receive that follows it records them)."""
    if f.name in PROBES:
        return "0"
    pairs = [(c, t) for c, t in COUNT_TYPE_PAIRS + [("recvcount", "datatype")]
             if f.has(c) and f.has(t) and f.by_name[c].is_scalar_count()]
    if not pairs:
        return vbytes_expr(f)
    c, t = pairs[0]
    e = f"cm_prof_bytes({c}, {t})"
    if c == "sendcount" and f.has("sendbuf") and ("recvcount", "recvtype") in pairs:
        e = f"(sendbuf == MPI_IN_PLACE ? cm_prof_bytes(recvcount, recvtype) : {e})"
    return e


def vbytes_expr(f):
    """The v-forms (arrays of counts, no scalar one): the mean per peer of the bytes
    this rank sends, so that they read like their plain forms (Alltoall records its
    per-peer block) and the report's matrix (every member -> every other member with
    the recorded bytes) adds up to what was sent.  Reduce_scatter's recvcounts are
    the blocks of its send buffer, one per member."""
    for counts, types in (("sendcounts", "sendtypes"), ("sendcounts", "sendtype"), ("recvcounts", "datatype")):
        if f.has(counts) and f.by_name[counts].is_count_array() and f.has(types) and comm_name(f):
            break
    else:
        return "0"
    typ = f"{types}[cm_i_]" if types.endswith("s") else types
    if types == "sendtype" and f.has("recvcounts") and f.has("recvtype"):   # Alltoallv in place
        counts = f"(sendbuf == MPI_IN_PLACE ? recvcounts : {counts})"
        typ = "(sendbuf == MPI_IN_PLACE ? recvtype : sendtype)"
    elif types == "sendtypes" and f.has("recvtypes"):
        counts = f"(sendbuf == MPI_IN_PLACE ? recvcounts : {counts})"
        typ = "(sendbuf == MPI_IN_PLACE ? recvtypes : sendtypes)[cm_i_]"
    peers = "cm_prof_peers(cm_c_, {}, {})".format(comm_name(f), "1" if "eighbor" in f.name else "0")
    if counts == "recvcounts":
        peers = "(cm_c_ ? cm_c_->size : 0)"
    return f"cm_prof_mean_bytes({peers}, cm_i_, cm_prof_bytes({counts}[cm_i_], {typ}))"


def comm_name(f):
    for n in COMM_NAMES:
        if f.has(n) and f.by_name[n].type == "MPI_Comm":
            return n
    return None


def gen_plain(f, call_id):
    """Wrapper for every call that is neither a completion nor Start(all)."""
    args = f.arg_names()
    L = []
    L.append(f"CM_PROF_EXPORT {f.ret} MPI_{f.name}({f.params_text})")
    L.append("{")
    L.append(f"    if (!cm_prof_on) return PMPI_{f.name}({args});")
    int_ret = f.ret == "int"
    flags = []
    if is_collective(f):
        flags.append("CPT_F_COLLECTIVE")
    if creates_request(f):
        flags.append("CPT_F_NONBLOCKING")
        if f.name.endswith("_init"):
            flags.append("CPT_F_PERSISTENT_INIT")
    status = recv_status(f)
    if status:
        L.append("    MPI_Status cm_st_;")
        L.append("    if (status == MPI_STATUS_IGNORE) status = &cm_st_;")
    if f.name == "Comm_free" and f.has("comm"):
        L.append("    cm_prof_comm_forget(*comm);")
    if f.name == "Type_free":
        L.append("    cm_prof_type_forget();")
    if f.name == "Request_free":
        L.append("    cm_prof_req_forget(*request);")
    L.append("    uint64_t cm_t0_ = cm_prof_now();")
    L.append(f"    {f.ret} cm_rc_ = PMPI_{f.name}({args});")
    L.append("    uint64_t cm_t1_ = cm_prof_now();")
    poll = POLLS.get(f.name)
    if poll:
        idle, key = poll
        L.append("    void *cm_ra_ = __builtin_return_address(0);")
        L.append(f"    int cm_idle_ = cm_rc_ == MPI_SUCCESS && {idle};")
        L.append(f"    cm_prof_fold_key_t cm_fk_ = {key.format(id=call_id)};")
        L.append("    if (cm_idle_ && cm_prof_fold_extend(cm_fk_, cm_t0_, cm_t1_)) return cm_rc_;")
    flag_expr = " | ".join(flags) if flags else "0"
    if int_ret:
        flag_expr = f"({flag_expr}) | (cm_rc_ != MPI_SUCCESS ? CPT_F_ERROR : 0)"
    cn = comm_name(f)
    if cn:
        L.append(f"    const cm_prof_comm_t *cm_c_ = cm_prof_comm({cn}, {'cm_rc_' if int_ret else '0'});")
    L.append(f"    cpt_event *cm_e_ = cm_prof_begin({call_id}, {flag_expr}, cm_t0_, cm_t1_, __builtin_return_address(0));")
    if cn:
        L.append("    cm_e_->comm = cm_c_ ? cm_c_->id : 0;")
    # peer
    peer_done = False
    for pname, pflag in PEER_RULES:
        if f.has(pname) and f.by_name[pname].is_scalar_int():
            if pflag == "CPT_F_RECV" and status:
                has_flag = f.has("flag") and f.by_name["flag"].type == "int *"
                cond = "cm_rc_ == MPI_SUCCESS" + (" && *flag" if has_flag else "")
                L.append(f"    int cm_src_ = ({cond}) ? status->MPI_SOURCE : {pname};")
                src = "cm_src_"
            else:
                src = pname
            if cn:
                L.append(f"    cm_prof_set_peer(cm_e_, cm_c_, {src}, {pflag});")
            else:
                L.append(f"    cm_e_->peer = {src}; cm_e_->flags |= {pflag} | CPT_F_PEER_LOCAL;")
            peer_done = True
            break
    if not peer_done and f.has("message") and status:
        L.append("    if (cm_rc_ == MPI_SUCCESS) cm_prof_set_peer(cm_e_, cm_prof_comm_unknown(), status->MPI_SOURCE, CPT_F_RECV);")
    # tag
    for t in TAG_NAMES:
        if f.has(t) and f.by_name[t].is_scalar_int():
            if status and not f.has("dest"):   # a receive reports the matched tag
                has_flag = f.has("flag") and f.by_name["flag"].type == "int *"
                cond = "cm_rc_ == MPI_SUCCESS" + (" && *flag" if has_flag else "")
                L.append(f"    cm_e_->tag = ({cond}) ? status->MPI_TAG : {t};")
            else:
                L.append(f"    cm_e_->tag = {t};")
            break
    else:
        if f.has("message") and status:
            L.append("    if (cm_rc_ == MPI_SUCCESS) cm_e_->tag = status->MPI_TAG;")
    # bytes: a receive that matched reports the matched size
    be = bytes_expr(f)
    if status and not f.has("dest"):
        has_flag = f.has("flag") and f.by_name["flag"].type == "int *"
        cond = "cm_rc_ == MPI_SUCCESS" + (" && *flag" if has_flag else "")
        if f.name in PROBES:
            L.append("    cm_e_->bytes = 0;")
        else:
            L.append(f"    cm_e_->bytes = ({cond}) ? cm_prof_status_bytes(status) : {be};")
    else:
        L.append(f"    cm_e_->bytes = {be};")
    if creates_request(f):
        persistent = "1" if f.name.endswith("_init") else "0"
        L.append(f"    if (cm_rc_ == MPI_SUCCESS) cm_e_->request = cm_prof_req_add(*request, cm_e_, {persistent});")
    L.append("    cm_prof_commit(cm_e_);")
    if poll:
        L.append("    if (cm_idle_) cm_prof_fold_open(cm_e_, cm_fk_);")
    # Sendrecv: the receive half as a secondary record
    if f.has("dest") and f.has("source") and status:
        rt = "recvtag" if f.has("recvtag") else "tag"
        L.append(f"    cpt_event *cm_e2_ = cm_prof_begin({call_id}, ({flag_expr}) | CPT_F_SECONDARY, cm_t0_, cm_t1_, __builtin_return_address(0));")
        L.append("    cm_e2_->comm = cm_e_->comm;")
        L.append("    cm_prof_set_peer(cm_e2_, cm_c_, cm_rc_ == MPI_SUCCESS ? status->MPI_SOURCE : source, CPT_F_RECV);")
        L.append(f"    cm_e2_->tag = {rt};")
        L.append("    cm_e2_->bytes = cm_rc_ == MPI_SUCCESS ? cm_prof_status_bytes(status) : 0;")
        L.append("    cm_prof_commit(cm_e2_);")
    L.append("    return cm_rc_;")
    L.append("}")
    return "\n".join(L)


def gen_completion(f, call_id):
    kind = COMPLETIONS[f.name]
    args = f.arg_names()
    L = [f"CM_PROF_EXPORT {f.ret} MPI_{f.name}({f.params_text})", "{"]
    L.append(f"    if (!cm_prof_on) return PMPI_{f.name}({args});")
    if kind.startswith("one"):
        L.append("    MPI_Status cm_st_;")
        L.append("    if (status == MPI_STATUS_IGNORE) status = &cm_st_;")
        L.append("    MPI_Request cm_req_ = *request;")
        L.append("    uint64_t cm_t0_ = cm_prof_now();")
        L.append(f"    int cm_rc_ = PMPI_{f.name}({args});")
        L.append("    uint64_t cm_t1_ = cm_prof_now();")
        if f.name in POLLS:
            idle, key = POLLS[f.name]
            L.append("    void *cm_ra_ = __builtin_return_address(0);")
            L.append(f"    if (cm_rc_ == MPI_SUCCESS && {idle}) {{")
            L.append(f"        cm_prof_idle_poll({call_id}, {key.format(id=call_id)}, cm_t0_, cm_t1_, cm_ra_);")
            L.append("        return cm_rc_;")
            L.append("    }")
        L.append(f"    cm_prof_begin_commit({call_id}, cm_rc_ != MPI_SUCCESS ? CPT_F_ERROR : 0, cm_t0_, cm_t1_, __builtin_return_address(0));")
        done = "cm_rc_ == MPI_SUCCESS" + (" && *flag" if kind == "one_flag" else "")
        L.append(f"    if ({done}) cm_prof_completed({call_id}, cm_req_, status, cm_t0_, cm_t1_, __builtin_return_address(0));")
    else:
        cnt = "incount" if f.has("incount") else "count"
        L.append(f"    MPI_Request cm_small_[16], *cm_reqs_ = {cnt} <= 16 ? cm_small_ : cm_prof_scratch_reqs({cnt});")
        L.append(f"    for (int cm_i_ = 0; cm_reqs_ && cm_i_ < {cnt}; cm_i_++) cm_reqs_[cm_i_] = array_of_requests[cm_i_];")
        if f.has("array_of_statuses"):
            L.append(f"    if (array_of_statuses == MPI_STATUSES_IGNORE) array_of_statuses = cm_prof_scratch_statuses({cnt});")
            L.append(f"    if (!array_of_statuses) return PMPI_{f.name}({args.replace('array_of_statuses', 'MPI_STATUSES_IGNORE')});")
        else:
            L.append("    MPI_Status cm_st_;")
            L.append("    if (status == MPI_STATUS_IGNORE) status = &cm_st_;")
        L.append("    uint64_t cm_t0_ = cm_prof_now();")
        L.append(f"    int cm_rc_ = PMPI_{f.name}({args});")
        L.append("    uint64_t cm_t1_ = cm_prof_now();")
        L.append("    void *cm_ra_ = __builtin_return_address(0);")
        if f.name in POLLS:
            idle, key = POLLS[f.name]
            L.append(f"    if (cm_reqs_ && cm_rc_ == MPI_SUCCESS && {idle}) {{")
            L.append(f"        cm_prof_idle_poll({call_id}, {key.format(id=call_id)}, cm_t0_, cm_t1_, cm_ra_);")
            L.append("        return cm_rc_;")
            L.append("    }")
        L.append(f"    cm_prof_begin_commit({call_id}, cm_rc_ != MPI_SUCCESS && cm_rc_ != MPI_ERR_IN_STATUS ? CPT_F_ERROR : 0, cm_t0_, cm_t1_, cm_ra_);")
        L.append("    if (cm_reqs_ && (cm_rc_ == MPI_SUCCESS || cm_rc_ == MPI_ERR_IN_STATUS)) {")
        if kind.startswith("all"):
            cond = "1" if kind == "all" else "*flag"
            L.append(f"        if ({cond}) for (int cm_i_ = 0; cm_i_ < {cnt}; cm_i_++)")
            L.append(f"            cm_prof_completed({call_id}, cm_reqs_[cm_i_], &array_of_statuses[cm_i_], cm_t0_, cm_t1_, cm_ra_);")
        elif kind.startswith("any"):
            cond = "*index != MPI_UNDEFINED" + (" && *flag" if kind == "any_flag" else "")
            L.append(f"        if ({cond} && *index >= 0 && *index < {cnt})")
            L.append(f"            cm_prof_completed({call_id}, cm_reqs_[*index], status, cm_t0_, cm_t1_, cm_ra_);")
        else:
            L.append("        if (*outcount != MPI_UNDEFINED) for (int cm_i_ = 0; cm_i_ < *outcount; cm_i_++) {")
            L.append("            int cm_x_ = array_of_indices[cm_i_];")
            L.append(f"            if (cm_x_ >= 0 && cm_x_ < {cnt}) cm_prof_completed({call_id}, cm_reqs_[cm_x_], &array_of_statuses[cm_i_], cm_t0_, cm_t1_, cm_ra_);")
            L.append("        }")
        L.append("    }")
    L.append("    return cm_rc_;")
    L.append("}")
    return "\n".join(L)


def gen_start(f, call_id):
    args = f.arg_names()
    L = [f"CM_PROF_EXPORT {f.ret} MPI_{f.name}({f.params_text})", "{"]
    L.append(f"    if (!cm_prof_on) return PMPI_{f.name}({args});")
    L.append("    uint64_t cm_t0_ = cm_prof_now();")
    L.append(f"    int cm_rc_ = PMPI_{f.name}({args});")
    L.append("    uint64_t cm_t1_ = cm_prof_now();")
    if f.name == "Start":
        L.append(f"    cm_prof_started({call_id}, *request, cm_rc_, 0, cm_t0_, cm_t1_, __builtin_return_address(0));")
    else:
        L.append("    for (int cm_i_ = 0; cm_i_ < count; cm_i_++)")
        L.append(f"        cm_prof_started({call_id}, array_of_requests[cm_i_], cm_rc_, cm_i_ > 0, cm_t0_, cm_t1_, __builtin_return_address(0));")
    L.append("    return cm_rc_;")
    L.append("}")
    return "\n".join(L)


def call_ids(funcs):
    return {f.name: 16 + i for i, f in enumerate(funcs)}  # CPT_CALL_FIRST_MPI


def generate(funcs, skip, mpi_h):
    ids = call_ids(funcs)
    out = ["/* generated by src/prof/gen_wrappers.py from " + os.path.basename(mpi_h) + ": do not edit */"]
    if skip:
        out.append("/* not wrapped for this MPI (missing or declared differently): "
                   + ", ".join(sorted(skip)) + " */")
    out.append('#include "prof_record.h"')
    out.append("")
    out.append("const cm_prof_call_name_t cm_prof_call_names[] = {")
    for f in funcs:
        out.append(f'    {{{ids[f.name]}, "MPI_{f.name}"}},')
    out.append("    {0, 0}")
    out.append("};")
    out.append("")
    for f in funcs:
        if f.name in HANDWRITTEN or f.name in skip:
            continue
        if f.name in COMPLETIONS:
            body = gen_completion(f, ids[f.name])
        elif f.name in ("Start", "Startall"):
            body = gen_start(f, ids[f.name])
        else:
            body = gen_plain(f, ids[f.name])
        out.append(f"/* MPI_{f.name} */")
        out.append(f"#if !defined(MPI_{f.name}) && !defined(PMPI_{f.name})  /* some MPIs make it a macro */")
        out.append(body)
        out.append("#endif")
        out.append("")
    return "\n".join(out) + "\n"


def gen_ids_header(funcs):
    ids = call_ids(funcs)
    L = ["/* generated by src/prof/gen_wrappers.py: do not edit */",
         "#ifndef CM_PROF_CALL_IDS_H", "#define CM_PROF_CALL_IDS_H"]
    for f in funcs:
        L.append(f"#define CM_PROF_ID_{f.name} {ids[f.name]}")
    L.append("#endif")
    return "\n".join(L) + "\n"


NAME_IN_DIAG = re.compile(r"\bP?MPI_([A-Z][a-z_0-9]*[a-z0-9_]|[A-Z][a-z]*)\b")


def probe(cc, cflags, src, funcs, extra, incdirs):
    """Names the compiler or linker refused: conflicting/undeclared/undefined."""
    known = {f.name for f in funcs}
    with tempfile.TemporaryDirectory() as td:
        c = os.path.join(td, "w.c")
        with open(c, "w") as fh:
            fh.write(src)
        inc = []
        for d in incdirs:
            inc += ["-I", d]
        cmd = cc.split() + cflags + inc + ["-shared", "-fPIC", "-o", os.path.join(td, "w.so"), c] \
            + extra + ["-lpthread", "-Wl,--no-undefined", "-fmax-errors=0",
                       "-Werror=implicit-function-declaration", "-Werror=incompatible-pointer-types"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            return set(), ""
        bad = set()
        for line in r.stderr.splitlines():
            if "error" not in line and "undefined reference" not in line:
                continue
            for m in re.finditer(r"[‘'`]P?MPI_(\w+)[’']", line):
                if m.group(1) in known:
                    bad.add(m.group(1))
        # an error in a signature (a type the host header lacks, such as
        # MPI_Session in an older MPI) names the function on its source line
        lines = src.splitlines()
        for line in r.stderr.splitlines():
            m = re.search(r"w\.c:(\d+):\d+: error", line)
            if m and 0 < int(m.group(1)) <= len(lines):
                for mm in re.finditer(r"\bP?MPI_(\w+)\s*\(", lines[int(m.group(1)) - 1]):
                    if mm.group(1) in known:
                        bad.add(mm.group(1))
        # an error inside a wrapper body names its function in the preceding "In function" line
        cur = None
        for line in r.stderr.splitlines():
            m = re.search(r"In function [‘'`]MPI_(\w+)[’']", line)
            if m:
                cur = m.group(1)
            elif "At top level" in line or re.search(r"In function [‘'`](?!MPI_)", line):
                cur = None
            elif "error" in line and cur in known:
                bad.add(cur)
        # an error in a wrapper's signature (a type the flavour's mpi.h lacks, such
        # as MPI_Session in Open MPI 4) names no function: find the definition
        # the error's line belongs to
        lines = src.splitlines()
        for line in r.stderr.splitlines():
            m = re.match(r".*w\.c:(\d+):\d+: error", line)
            if not m:
                continue
            for k in range(min(int(m.group(1)), len(lines)) - 1, -1, -1):
                d = re.match(r"CM_PROF_EXPORT\b.*?\bP?MPI_(\w+)\s*\(", lines[k])
                if d:
                    if d.group(1) in known:
                        bad.add(d.group(1))
                    break
        return bad, r.stderr


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("mpi_h")
    ap.add_argument("out")
    ap.add_argument("--ids")
    ap.add_argument("--probe-cc")
    ap.add_argument("--cflags", default="")
    ap.add_argument("-I", dest="incdirs", action="append", default=[])
    ap.add_argument("--extra", action="append", default=[], help="runtime sources linked in the probe")
    a = ap.parse_args(argv)
    funcs = read_api(a.mpi_h)
    if not funcs:
        sys.exit(f"gen_wrappers.py: no CM_API_FN lines in {a.mpi_h}")
    # The tool information interface (MPI_T_*) is not wrapped: it is the
    # tools' own way in, not application traffic, and a host MPI's header
    # may lack its newer types (MPI_T_source_order, event callbacks), which
    # fail the probe in signatures that name no wrapper body.
    skip = {f.name for f in funcs if f.name.startswith("T_")}
    src = generate(funcs, skip, a.mpi_h)
    if a.probe_cc:
        for _ in range(6):
            bad, err = probe(a.probe_cc, a.cflags.split(), src, funcs, a.extra, a.incdirs)
            bad -= skip
            if not bad:
                if err:
                    sys.exit("gen_wrappers.py: the probe build fails for a reason not tied to one "
                             "function:\n" + err[:4000])
                break
            skip |= bad
            src = generate(funcs, skip, a.mpi_h)
        print(f"gen_wrappers.py: {a.probe_cc}: wrapping {len(funcs) - len(skip) - len(HANDWRITTEN & {f.name for f in funcs})} "
              f"generated + {len(HANDWRITTEN)} hand-written; skipped {len(skip)}: {' '.join(sorted(skip))}")
    tmp = a.out + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(src)
    os.replace(tmp, a.out)
    if a.ids:
        with open(a.ids + ".tmp", "w") as fh:
            fh.write(gen_ids_header(funcs))
        os.replace(a.ids + ".tmp", a.ids)


if __name__ == "__main__":
    main(sys.argv[1:])
