#!/usr/bin/env python3
"""gen_fortran.py SPECDIR MPI_H OUTDIR -- the Fortran bindings from the spec.

Writes into OUTDIR:
  mpif.h        include 'mpif.h': the constants, the sentinels (common blocks),
                the types of the functions that return a value.  Fixed-form
                text that is free form too (columns 7..72, no continuation).
  mpi.f90       module mpi: the same constants and an explicit interface of
                every bound function (choice buffers: gfortran's NO_ARG_CHECK).
  fbind.c       the Fortran-callable C functions: mpi_send_, mpi_send__,
                mpi_send, MPI_SEND and the pmpi_ ones, for every function of
                the spec that has a Fortran binding (see skipped()).
  mpi_f08.f90   module mpi_f08 (spec/gen_fortran_f08.py).
  ftest_all.f   a program that calls every bound function through mpif.h,
  ftest_all_mod.f90, ftest_all_f08.f90  through use mpi and use mpi_f08
                (compiled and linked by a test).

The constants come from corempi's own mpi.h (MPI_H): each #define of an
integer or a handle becomes a Fortran INTEGER PARAMETER, the handle's ABI
value being its Fortran integer (MPI_<Handle>_toint is the identity on
predefined handles, docs/abi.md).  docs/fortran.md has the conventions.
"""
import copy
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spec  # noqa: E402
import gen_fortran_f08  # noqa: E402

# ---- which functions have a Fortran binding --------------------------------

# Bound by hand in src/fortran/manual.c (their Fortran signature is not the C one).
MANUAL = {'MPI_Init', 'MPI_Init_thread', 'MPI_Info_create_env', 'MPI_Pcontrol',
          # deprecated, INTEGER attributes (src/fortran/deprecated.c; no mpi_f08 binding)
          'MPI_Keyval_create', 'MPI_Attr_get', 'MPI_Attr_put'}
# Their interfaces are generated, their C by hand (src/fortran/keyval.c,
# grequest.c: their Fortran callbacks need trampolines).
MANUAL_C = {'MPI_Comm_create_keyval', 'MPI_Type_create_keyval', 'MPI_Win_create_keyval',
            'MPI_Grequest_start'}
# The predefined attribute callbacks, Fortran procedures (keyval.c).
PREDEF_CALLBACKS = ['MPI_%s_%s' % (k, f) for k in ('COMM', 'TYPE', 'WIN')
                    for f in ('NULL_COPY_FN', 'DUP_FN', 'NULL_DELETE_FN')]
# The deprecated MPI_KEYVAL_CREATE's (INTEGER attributes): mpif.h and mpi only.
PREDEF_CALLBACKS_DEPRECATED = ['MPI_NULL_COPY_FN', 'MPI_DUP_FN', 'MPI_NULL_DELETE_FN']
# Callback types a Fortran procedure can be handed for as it is: C passes every
# argument by address and the handle argument's first 4 bytes are the handle's
# Fortran integer (little-endian, fromint is a cast: checked in fbind_util.c).
PASS_THROUGH_CB = {'User_function', 'User_function_c', 'Comm_errhandler_function',
                   'Session_errhandler_function', 'Win_errhandler_function', 'File_errhandler_function',
                   # never called: src/io/datarep.c keeps the names only (docs/io.md)
                   'Datarep_conversion_function', 'Datarep_conversion_function_c', 'Datarep_extent_function'}


def skipped(fn):
    """Why fn has no generated Fortran binding, or None."""
    if fn.large:
        return '_c forms are mpi_f08 only'
    if fn.name.startswith('MPI_T_'):
        return 'MPI_T has no Fortran binding (MPI-4.1 15.3)'
    if re.search(r'_(toint|fromint)$', fn.name):
        return 'C only (the ABI\'s handle conversions)'
    if 'removed' in fn.flags:
        return 'removed from the standard'
    if fn.name in MANUAL:
        return 'manual'
    return None


def bound(api):
    return [f for f in api.functions() if skipped(f) is None]


def with_form_types(fn):
    """fn with each parameter's base type the one of its form (the _c form's
    base_c), so that the code below reads p.base alone."""
    if not fn.large:
        return fn
    f = copy.copy(fn)
    f.params = []
    for p in fn.params:
        q = copy.copy(p)
        q.base = p.base_c
        f.params.append(q)
    return f


def bound_large(api):
    """The _c forms of the bound functions (mpi_f08 reaches them through the
    generic name; C glue only, no mpif.h names of their own are promised)."""
    return [with_form_types(f) for f in api.functions()
            if f.large and skipped(f.base) is None and f.base.name not in MANUAL_C]


# ---- constants from mpi.h ------------------------------------------------

C_ONLY_PREFIXES = ('MPI_T_', 'MPI_F_', 'MPI_ABI_', 'MPIX_')


def constants(mpi_h):
    """[(name, value)] of the integer and handle #defines of mpi.h."""
    text = open(mpi_h).read()
    raw = {}
    order = []
    for m in re.finditer(r'^#define\s+(MPIX?_[A-Z0-9_]+)\s+(.+?)\s*(?:/\*.*)?$', text, re.M):
        name, val = m.group(1), m.group(2).strip()
        if name not in raw:
            order.append(name)
        raw[name] = val
    out = []
    for name in order:
        if name.startswith(C_ONLY_PREFIXES) and name not in ('MPIX_TYPECLASS_LOGICAL',):
            continue
        v = value_of(raw, name)
        if v is not None:
            out.append((name, v))
    return out


def value_of(raw, name, depth=0):
    val = raw.get(name)
    if val is None or depth > 4:
        return None
    if re.match(r'MPIX?_[A-Z0-9_]+$', val):
        v = value_of(raw, val, depth + 1)
        HANDLE_OF[name] = HANDLE_OF.get(val)
        return v
    m = re.match(r'^\(*\s*(?:\(\s*MPI_(Comm|Group|Win|File|Session|Message|Info|Errhandler|'
                 r'Request|Datatype|Op|Offset)\s*\))?\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*\)*$', val)
    if not m:
        return None
    v = int(m.group(2), 0)
    HANDLE_OF[name] = m.group(1) if m.group(1) != 'Offset' else None
    return v if -2**31 <= v < 2**31 else None


# name -> its handle type ('Comm', ...) or None: filled by value_of.
HANDLE_OF = {}


# Values a Fortran program sees that mpi.h does not spell (MPI-4.1 19.1).
FORTRAN_ONLY = [('MPI_STATUS_SIZE', 8), ('MPI_SOURCE', 1), ('MPI_TAG', 2), ('MPI_ERROR', 3),
                ('MPI_ADDRESS_KIND', 8), ('MPI_OFFSET_KIND', 8), ('MPI_COUNT_KIND', 8),
                ('MPI_INTEGER_KIND', 4)]
# Sentinels: each a common block of its own, /MPI_FORTRAN_<NAME>/, whose
# address the C side compares (src/fortran/fbind_util.c defines them).
SENTINELS = [('MPI_BOTTOM', 'INTEGER', ''), ('MPI_IN_PLACE', 'INTEGER', ''),
             ('MPI_BUFFER_AUTOMATIC', 'INTEGER', ''),
             ('MPI_STATUS_IGNORE', 'INTEGER', '(MPI_STATUS_SIZE)'),
             ('MPI_STATUSES_IGNORE', 'INTEGER', '(MPI_STATUS_SIZE,1)'),
             ('MPI_ERRCODES_IGNORE', 'INTEGER', '(1)'),
             ('MPI_UNWEIGHTED', 'INTEGER', '(1)'), ('MPI_WEIGHTS_EMPTY', 'INTEGER', '(1)'),
             ('MPI_ARGV_NULL', 'CHARACTER*1', '(1)'), ('MPI_ARGVS_NULL', 'CHARACTER*1', '(1,1)')]


def fixed(line):
    """A statement in columns 7..72 (valid fixed and free form)."""
    s = '      ' + line
    if len(s) > 72:
        raise SystemExit('gen_fortran: line longer than 72 columns: %s' % s)
    return s


def fixed_cont(line):
    """A long statement of fixed form, continued in column 6."""
    out = []
    while len(line) > 60:
        cut = line.rfind(',', 0, 60) + 1
        out.append(line[:cut])
        line = line[cut:]
    out.append(line)
    return ['      ' + out[0]] + ['     &' + l for l in out[1:]]


def free_cont(line):
    """A long statement of free form, continued with &."""
    out = []
    while len(line) > 100:
        cut = line.rfind(',', 0, 100) + 1
        out.append(line[:cut] + ' &')
        line = '    ' + line[cut:]
    return out + [line]


def constant_lines(consts):
    """The declarations shared by mpif.h and module mpi."""
    out = ['! corempi: generated by spec/gen_fortran.py from include/mpi.h; do not edit']
    for name, v in FORTRAN_ONLY:
        out += [fixed('INTEGER %s' % name), fixed('PARAMETER (%s=%d)' % (name, v))]
    seen = {n.upper() for n, _ in FORTRAN_ONLY}
    for name, v in consts:
        if name.upper() in seen:
            continue
        seen.add(name.upper())
        ty = 'INTEGER(KIND=MPI_OFFSET_KIND)' if name == 'MPI_DISPLACEMENT_CURRENT' else 'INTEGER'
        out += [fixed('%s %s' % (ty, name)), fixed('PARAMETER (%s=%d)' % (name, v))]
    for name, ty, dims in SENTINELS:
        out += [fixed('%s %s%s' % (ty, name, dims)),
                fixed('COMMON /MPI_FORTRAN_%s/ %s' % (name[4:], name))]
    return out


# ---- Fortran types of the parameters -------------------------------------

def ftype(p):
    """The Fortran declaration (type and dims, no name) of parameter p for
    mpif.h/use mpi; the choice buffers are handled by the caller."""
    t = p.base
    dims = '(*)' if p.dims else ''
    if t in ('int', 'Fint') or t in spec.HANDLES:
        return 'INTEGER', dims
    if t == 'bool':
        return 'LOGICAL', dims
    if t in ('Aint', 'attrval', 'ptr'):
        return 'INTEGER(KIND=MPI_ADDRESS_KIND)', dims
    if t == 'Count':
        return 'INTEGER(KIND=MPI_COUNT_KIND)', dims
    if t == 'Offset':
        return 'INTEGER(KIND=MPI_OFFSET_KIND)', dims
    if t == 'double':
        return 'DOUBLE PRECISION', dims
    if t == 'Status':
        return 'INTEGER', '(MPI_STATUS_SIZE,*)' if p.dims else '(MPI_STATUS_SIZE)'
    if t == 'char' or (t == 'string' and not p.dims):
        return 'CHARACTER*(*)', ''
    if t == 'string':
        return 'CHARACTER*(*)', '(*)'
    if t == 'argv':     # an array of strings, a blank one last; of those
        return 'CHARACTER*(*)', '(%s,*)' % p.dims[0] if p.dims else '(*)'
    if spec.is_callback(t):
        return 'EXTERNAL', ''
    raise SystemExit('gen_fortran: no Fortran type for %s' % t)


def fparams(fn):
    return [p for p in fn.params if p.base not in ('varargs', '-')]


def has_ierror(fn):
    return fn.ret == 'int'


# ---- C glue -----------------------------------------------------------------

def c_expr(expr, fn, locs):
    """A spec length expression as C over the Fortran arguments (pointers)
    and the converted handles (locs: name -> C local)."""
    params = {p.name: p for p in fn.params}

    def fact(m):
        f, arg = m.group(1), m.group(2).strip()
        if f == 'sum':
            return 'cmf_sum(%s, *%s)' % (arg, size_param_of(fn, arg))
        return 'cmf_%s(%s)' % (f, locs[arg])
    e = re.sub(r'\b(size|rsize|rank|indegree|outdegree|ndims|sum)\(\s*(\w+)\s*\)', fact, expr)

    def name(m):
        n = m.group(0)
        if n.startswith('cmf_') or n.startswith('MPI_') or n.startswith('c_'):
            return n
        p = params.get(n)
        if p is None:
            return n
        return n if p.dims else '(*%s)' % n
    return re.sub(r'\b[A-Za-z_]\w*\b', name, e)


def size_param_of(fn, arr):
    return [p for p in fn.params if p.name == arr][0].dims[0]


def c_binding(fn, prefix):
    """The C function for Fortran name (lower case, with prefix 'mpi_' or
    'pmpi_'): returns its text."""
    cname = prefix.upper() + fn.name[4:]          # MPI_Send or PMPI_Send
    decls, pre, late, args, post, lens = [], [], [], [], [], []
    # The scalar handles first: an array's length may name one (rsize(comm)).
    locs = {p.name: 'c_' + p.name for p in fn.params if p.base in spec.HANDLES and not p.dims}
    for p in fparams(fn):
        n, t = p.name, p.base
        if p.buf is not None or t == 'loc':
            decls.append('void *%s' % n)
            args.append('cmf_buf(%s)' % n)
        elif t in spec.HANDLES:
            ct = 'MPI_' + t
            decls.append('MPI_Fint *%s' % n)
            if p.dims:
                ln = c_expr(p.dims[0], fn, locs)
                late.append('int n_%s = %s;' % (n, ln))
                late.append('%s stack_%s[16] = {0}, *c_%s = n_%s <= 16 ? stack_%s : cmf_alloc(n_%s * sizeof(%s));'
                           % (ct, n, n, n, n, n, ct))
                if p.dir != 'out':
                    late.append('for (int i = 0; i < n_%s; i++) c_%s[i] = CMF_FROMINT(%s, %s[i]);' % (n, n, ct, n))
                args.append('c_%s' % n)
                if p.dir != 'in':
                    post.append('for (int i = 0; i < n_%s; i++) %s[i] = CMF_TOINT(c_%s[i]);' % (n, n, n))
                post.append('if (c_%s != stack_%s) free(c_%s);' % (n, n, n))
            elif p.dir == 'in' and 'byref' not in p.attrs:
                pre.append('%s c_%s = CMF_FROMINT(%s, *%s);' % (ct, n, ct, n))
                args.append('c_%s' % n)
            else:
                pre.append('%s c_%s = %s;' % (ct, n, 'CMF_FROMINT(%s, *%s)' % (ct, n)))
                args.append('&c_%s' % n)
                if p.dir != 'in':
                    post.append('*%s = CMF_TOINT(c_%s);' % (n, n))
        elif t == 'bool':
            decls.append('MPI_Fint *%s' % n)
            if p.dims:
                ln = c_expr(p.dims[0], fn, locs)
                late.append('int n_%s = %s;' % (n, ln))
                late.append('int stack_%s[16] = {0}, *c_%s = n_%s <= 16 ? stack_%s : cmf_alloc(n_%s * sizeof(int));'
                           % (n, n, n, n, n))
                if p.dir != 'out':
                    late.append('for (int i = 0; i < n_%s; i++) c_%s[i] = cmf_from_logical(%s[i]);' % (n, n, n))
                args.append('c_%s' % n)
                if p.dir != 'in':
                    post.append('for (int i = 0; i < n_%s; i++) %s[i] = cmf_to_logical(c_%s[i]);' % (n, n, n))
                post.append('if (c_%s != stack_%s) free(c_%s);' % (n, n, n))
            elif p.dir == 'in':
                args.append('cmf_from_logical(*%s)' % n)
            else:
                pre.append('int c_%s = 0;' % n)
                args.append('&c_%s' % n)
                post.append('*%s = cmf_to_logical(c_%s);' % (n, n))
        elif t in ('int', 'Count', 'Aint', 'Offset', 'double'):
            ct = spec.VALUES[t]
            decls.append('%s *%s' % ('MPI_Fint' if t == 'int' else ct, n))
            if p.dims:
                sent = [s for s in p.specials if s in ('ERRCODES_IGNORE', 'UNWEIGHTED', 'WEIGHTS_EMPTY')]
                if len(p.dims) > 1:     # int ranges[][3]
                    args.append('(%s (*)%s)%s' % (ct, ''.join('[%s]' % d for d in p.dims[1:]), n))
                else:
                    args.append('cmf_intarray(%s)' % n if sent else n)
            elif p.dir == 'in':
                args.append('*%s' % n)
            else:
                args.append(n)
        elif t == 'Status':
            decls.append('MPI_Fint *%s' % n)
            args.append('cmf_status(%s)' % n)
        elif t == 'attrval':
            decls.append('MPI_Aint *%s' % n)
            if p.dir == 'in':
                args.append('(void *)*%s' % n)
            else:
                pre.append('void *c_%s = NULL;' % n)
                args.append('&c_%s' % n)
                keyval = [q.name for q in fn.params if q.kind == 'keyval'][0]
                flag = [q.name for q in fn.params if q.base == 'bool' and q.dir == 'out'][0]
                post.append('if (c_%s) *%s = cmf_attr_value(*%s, c_%s, %d);'
                            % (flag, n, keyval, n, 1 if fn.name.startswith('MPI_Win') else 0))
        elif t == 'ptr':
            decls.append('MPI_Aint *%s' % n)
            args.append(n)
        elif t == 'string' and not p.dims:
            decls.append('const char *%s' % n)
            lens.append('size_t len_%s' % n)
            pre.append('char *c_%s = cmf_cstring(%s, len_%s);' % (n, n, n))
            args.append('c_%s' % n)
            post.append('free(c_%s);' % n)
        elif t in ('string', 'argv'):
            # an argument list, or an array of strings or of argument lists
            # (MPI_Comm_spawn_multiple): significant at the root only,
            # elsewhere it may be anything
            decls.append('const char *%s' % n)
            lens.append('size_t len_%s' % n)
            root = 'cmf_rank(c_comm) == *root ? ' if {'root', 'comm'} <= {q.name for q in fn.params} else ''
            if t == 'argv' and not p.dims:
                conv, ctype = 'cmf_argv(%s, len_%s)' % (n, n), 'char **'
            elif t == 'argv':
                conv, ctype = 'cmf_argvs(%s, len_%s, %s)' % (n, n, c_expr(p.dims[0], fn, locs)), 'char ***'
            else:
                conv, ctype = 'cmf_strings(%s, len_%s, %s)' % (n, n, c_expr(p.dims[0], fn, locs)), 'char **'
            late.append('%sc_%s = %s%s%s;' % (ctype, n, root, conv, ' : NULL' if root else ''))
            args.append('c_%s' % n)
            post.append('cmf_%s_free(c_%s);' % ('argvs' if t == 'argv' and p.dims else 'argv', n))
        elif t == 'char':
            decls.append('char *%s' % n)
            lens.append('size_t len_%s' % n)
            ln = c_expr(p.dims[0], fn, locs)
            late.append('size_t n_%s = cmf_max((size_t)(%s), len_%s) + 1;' % (n, ln, n))
            late.append('char *c_%s = cmf_alloc(n_%s);' % (n, n))
            late.append('c_%s[0] = 0;' % n)
            args.append('c_%s' % n)
            post.append('cmf_fstring(c_%s, %s, len_%s);' % (n, n, n))
            post.append('free(c_%s);' % n)
        elif spec.is_callback(t):
            if t not in PASS_THROUGH_CB:
                raise SystemExit('gen_fortran: %s: callback %s cannot be passed through' % (fn.name, t))
            decls.append('MPI_%s *%s' % (t, n))
            args.append(n)
        else:
            raise SystemExit('gen_fortran: %s: no C conversion for %s' % (fn.name, t))
    lname = prefix + fn.name[4:].lower()
    ret_c = {'int': 'void', 'double': 'double', 'Aint': 'MPI_Aint'}[fn.ret]
    if has_ierror(fn):
        decls.append('MPI_Fint *ierror')
    sig = ', '.join(decls + lens) or 'void'
    body = ['%s %s_(%s)' % (ret_c, lname, sig), '{']
    body += ["    " + s for s in pre + late]
    call = '%s(%s)' % (cname, ', '.join(args))
    if fn.ret == 'int':
        body.append('    int rc = %s;' % call)
    else:
        body.append('    %s r = %s;' % (ret_c, call))
    body += ['    ' + s for s in post]
    body.append('    *ierror = rc;' if fn.ret == 'int' else '    return r;')
    body.append('}')
    up = lname.upper()
    for alias in (lname + '__', lname, up):
        body.append('CMF_ALIAS(%s_, %s)' % (lname, alias))
    if prefix == 'mpi_':    # what module mpi_f08 calls (gen_fortran_f08.py)
        body.append('CMF_ALIAS_HIDDEN(%s_, cmf08_%s_)' % (lname, lname[4:]))
    return '\n'.join(body)


def direct_entry(fn):
    """The C entry module mpi_f08 binds fn's name to (gen_fortran_f08.direct):
    the buffers' descriptors; every buffer contiguous (the common case, tested
    inline) calls the mpif.h function (by its hidden name, a direct call),
    else the module procedure of the sections (section.c).  An absent
    OPTIONAL ierror is NULL."""
    lname = fn.name[4:].lower()
    ps = fparams(fn)
    decls = ['%s %s' % ('CFI_cdesc_t *' if gen_fortran_f08.is_choice(p) else 'void *', p.name) for p in ps]
    sig = ', '.join(decls + ['MPI_Fint *ierror'])
    fast = ', '.join(p.name + '->base_addr' if gen_fortran_f08.is_choice(p) else p.name for p in ps)
    choices = [p.name for p in ps if gen_fortran_f08.is_choice(p)]
    roomy = ', '.join('cmf_desc_room(%s, &room_%s)' % (p.name, p.name) if gen_fortran_f08.is_choice(p) else p.name
                      for p in ps)
    test = ' && '.join('cmf_contiguous(%s)' % p.name for p in ps if gen_fortran_f08.is_choice(p))
    return '\n'.join([
        'void cmf08s_%s(%s);' % (lname, sig),
        'void cmf08c_%s(%s);' % (lname, sig),
        'void cmf08c_%s(%s)' % (lname, sig), '{',
        '    if (%s) {' % test,
        '        MPI_Fint rc;',
        '        cmf08_%s_(%s, &rc);' % (lname, fast),     # mpi_<name>_, hidden: no PLT
        '        if (ierror)', '            *ierror = rc;',
        '    } else {',
        '        cmf_desc_room_t %s;' % ', '.join('room_' + c for c in choices),
        '        cmf08s_%s(%s, ierror);' % (lname, roomy),
        '    }', '}'])


def write_c(api, path):
    out = ['/* Generated by spec/gen_fortran.py from the spec (spec/NAME.api): do not edit.',
           ' * The Fortran-callable functions of libmpifort (docs/fortran.md). */',
           '#include "fbind_util.h"',
           '/* MPI_ERRCODES_IGNORE (NULL) handed to an int array[] parameter is no overflow. */',
           '#pragma GCC diagnostic ignored "-Wstringop-overflow"', '']
    for fn in bound(api) + bound_large(api):
        if fn.name in MANUAL_C:
            continue
        for prefix in ('mpi_', 'pmpi_'):
            out.append(c_binding(fn, prefix))
            out.append('')
        if gen_fortran_f08.direct(fn):
            out += [direct_entry(fn), '']
    write(path, '\n'.join(out))


# ---- mpif.h and module mpi ------------------------------------------------

def value_functions(api):
    """The bound functions that return a value: [(name, Fortran type)]."""
    out = []
    for fn in bound(api):
        if fn.ret == 'double':
            out.append((fn.name.upper(), 'DOUBLE PRECISION'))
        elif fn.ret == 'Aint':
            out.append((fn.name.upper(), 'INTEGER(KIND=MPI_ADDRESS_KIND)'))
    return out


def write_mpif(api, consts, path):
    lines = constant_lines(consts)
    lines += [fixed('EXTERNAL %s' % n) for n in PREDEF_CALLBACKS + PREDEF_CALLBACKS_DEPRECATED]
    for name, ty in value_functions(api) + [('PMPI_WTIME', 'DOUBLE PRECISION'),
                                             ('PMPI_WTICK', 'DOUBLE PRECISION')]:
        lines += [fixed('%s %s' % (ty, name)), fixed('EXTERNAL %s' % name)]
    write(path, '\n'.join(lines) + '\n')


def interface(fn):
    """The explicit interface of fn in module mpi."""
    ps = [p.name for p in fparams(fn)] + (['ierror'] if has_ierror(fn) else [])
    kind = 'SUBROUTINE' if has_ierror(fn) else 'FUNCTION'
    out = free_cont('%s %s(%s)' % (kind, fn.name, ', '.join(ps)))
    body = []
    needs_kinds = False
    for p in fparams(fn):
        if p.buf is not None or p.base == 'loc':
            body.append('!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % p.name)
            body.append('REAL, DIMENSION(*) :: %s' % p.name)
            continue
        ty, dims = ftype(p)
        needs_kinds |= 'KIND' in ty or 'STATUS_SIZE' in dims
        body.append('%s :: %s%s' % (ty, p.name, dims) if ty != 'EXTERNAL' else 'EXTERNAL :: %s' % p.name)
    if has_ierror(fn):
        body.append('INTEGER :: ierror')
    elif fn.ret == 'double':
        body.append('DOUBLE PRECISION :: %s' % fn.name)
    else:
        needs_kinds = True
        body.append('INTEGER(KIND=MPI_ADDRESS_KIND) :: %s' % fn.name)
    if needs_kinds:
        out.append('  IMPORT :: MPI_ADDRESS_KIND, MPI_COUNT_KIND, MPI_OFFSET_KIND, MPI_STATUS_SIZE')
    out += ['  ' + b for b in body]
    out.append('END %s %s' % (kind, fn.name))
    return out


# MPI_SIZEOF (MPI-4.1 19.1.9): the bytes of one element of any intrinsic
# type, scalar or array (storage_size of the dynamic type).  A module
# procedure of module mpi and module mpi_f08 (ierror optional there).
SIZEOF_PROCEDURE = '''SUBROUTINE cmf_sizeof(x, size, ierror)
  CLASS(*), INTENT(IN) :: x(..)
  INTEGER, INTENT(OUT) :: size
  INTEGER, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  ierror = MPI_SUCCESS
END SUBROUTINE cmf_sizeof
'''


# Bound by hand (src/fortran/manual.c): their interfaces.
MANUAL_INTERFACES = '''SUBROUTINE MPI_Init(ierror)
  INTEGER :: ierror
END SUBROUTINE MPI_Init
SUBROUTINE MPI_Init_thread(required, provided, ierror)
  INTEGER :: required, provided, ierror
END SUBROUTINE MPI_Init_thread
SUBROUTINE MPI_Info_create_env(info, ierror)
  INTEGER :: info, ierror
END SUBROUTINE MPI_Info_create_env
SUBROUTINE MPI_Pcontrol(level)
  INTEGER :: level
END SUBROUTINE MPI_Pcontrol
SUBROUTINE MPI_Keyval_create(copy_fn, delete_fn, keyval, extra_state, ierror)
  EXTERNAL :: copy_fn, delete_fn
  INTEGER :: keyval, extra_state, ierror
END SUBROUTINE MPI_Keyval_create
SUBROUTINE MPI_Attr_get(comm, keyval, attribute_val, flag, ierror)
  INTEGER :: comm, keyval, attribute_val, ierror
  LOGICAL :: flag
END SUBROUTINE MPI_Attr_get
SUBROUTINE MPI_Attr_put(comm, keyval, attribute_val, ierror)
  INTEGER :: comm, keyval, attribute_val, ierror
END SUBROUTINE MPI_Attr_put
'''


def write_module(api, consts, path):
    out = ['! module mpi: generated by spec/gen_fortran.py; do not edit',
           'MODULE mpi', 'IMPLICIT NONE']
    out += constant_lines(consts)[1:]
    out += ['EXTERNAL :: %s' % n for n in PREDEF_CALLBACKS + PREDEF_CALLBACKS_DEPRECATED]
    out.append('INTERFACE')
    for fn in bound(api):
        out += interface(fn)
    out += MANUAL_INTERFACES.splitlines()
    out.append('END INTERFACE')
    out += ['INTERFACE MPI_Sizeof', '  MODULE PROCEDURE cmf_sizeof', 'END INTERFACE', 'PRIVATE :: cmf_sizeof',
            'CONTAINS'] + SIZEOF_PROCEDURE.splitlines()
    out.append('END MODULE mpi')
    write(path, '\n'.join(out) + '\n')


# ---- the compile test ----------------------------------------------------

def test_args(fn):
    """The arguments of a call of fn in the compile test."""
    return test_args_of(fparams(fn))


def test_args_of(params):
    args = []
    for p in params:
        t = p.base
        if p.buf is not None or t == 'loc':
            args.append('rbuf')
        elif t in ('int', 'Fint') or t in spec.HANDLES:
            args.append('iarr' if p.dims else 'ival')
        elif t == 'bool':
            args.append('larr' if p.dims else 'lval')
        elif t in ('Aint', 'attrval', 'ptr'):
            args.append('aarr' if p.dims else 'aval')
        elif t == 'Count':
            args.append('carr' if p.dims else 'cval')
        elif t == 'Offset':
            args.append('oval')
        elif t == 'Status':
            args.append('stats' if p.dims else 'stat')
        elif t == 'char' or (t == 'string' and not p.dims):
            args.append('str')
        elif t in ('string', 'argv'):
            args.append('sarr2' if t == 'argv' and p.dims else 'sarr')
        elif t == 'User_function' or t == 'User_function_c':
            args.append('myop')
        elif t.endswith('copy_attr_function'):
            args.append('MPI_%s_DUP_FN' % t.split('_')[0].upper())
        elif t.endswith('delete_attr_function'):
            args.append('MPI_%s_NULL_DELETE_FN' % t.split('_')[0].upper())
        elif spec.is_callback(t):
            args.append('myerrh')
        else:
            raise SystemExit('gen_fortran: test: %s' % t)
    return args


def write_test(api, path, module):
    decl = ['INTEGER ival, iarr(16), stat(MPI_STATUS_SIZE)',
            'INTEGER stats(MPI_STATUS_SIZE,4), ierr',
            'LOGICAL lval, larr(4)',
            'INTEGER(KIND=MPI_ADDRESS_KIND) aval, aarr(4)',
            'INTEGER(KIND=MPI_COUNT_KIND) cval, carr(4)',
            'INTEGER(KIND=MPI_OFFSET_KIND) oval',
            'DOUBLE PRECISION dval', 'REAL rbuf(16)',
            'CHARACTER*(64) str, sarr(4), sarr2(4,4)', 'EXTERNAL myop, myerrh']
    if module:
        head = ['PROGRAM ftest_all_mod', 'USE mpi', 'IMPLICIT NONE']
    else:
        head = ['PROGRAM ftest_all', 'IMPLICIT NONE', "INCLUDE 'mpif.h'"]
    lines = head + decl
    lines += ['ival = 0', 'aval = 0', 'cval = 0', 'oval = 0', 'lval = .FALSE.',
              '! Compiled and linked for every function; run, it only checks',
              '! that it can start (it calls nothing unless given an argument).',
              'IF (COMMAND_ARGUMENT_COUNT() .LT. 99) STOP']
    for fn in bound(api):
        a = test_args(fn)
        if has_ierror(fn):
            lines.append('CALL %s(%s)' % (fn.name.upper(), ', '.join(a + ['ierr'])))
        elif fn.ret == 'double':
            lines.append('dval = %s(%s)' % (fn.name.upper(), ', '.join(a)))
        else:
            lines.append('aval = %s(%s)' % (fn.name.upper(), ', '.join(a)))
    lines += ['CALL MPI_INIT(ierr)', 'CALL MPI_INIT_THREAD(ival, ival, ierr)',
              'CALL MPI_INFO_CREATE_ENV(ival, ierr)', 'CALL MPI_PCONTROL(ival)',
              'CALL MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, ival, ival, ierr)',
              'CALL MPI_ATTR_PUT(ival, ival, ival, ierr)', 'CALL MPI_ATTR_GET(ival, ival, ival, lval, ierr)',
              'END',
              'SUBROUTINE myop(a, b, n, t)', 'INTEGER a(*), b(*), n, t', 'END',
              'SUBROUTINE myerrh(c, e)', 'INTEGER c, e', 'END']
    if module:
        out = []
        for l in lines:
            out += free_cont(l)
    else:
        out = []
        for l in lines:
            out += [l] if l.startswith('!') else fixed_cont(l)
    write(path, '\n'.join(out) + '\n')


def write(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, 'w') as fh:
        fh.write(text)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    specdir, mpi_h, outdir = argv
    api = spec.load_checked(specdir, 'gen_fortran')
    if api is None:
        return 1
    os.makedirs(outdir, exist_ok=True)
    consts = constants(mpi_h)
    write_mpif(api, consts, os.path.join(outdir, 'mpif.h'))
    write_module(api, consts, os.path.join(outdir, 'mpi.f90'))
    write_c(api, os.path.join(outdir, 'fbind.c'))
    write_test(api, os.path.join(outdir, 'ftest_all.f'), False)
    write_test(api, os.path.join(outdir, 'ftest_all_mod.f90'), True)
    gen_fortran_f08.write_module(api, consts, os.path.join(outdir, 'mpi_f08.f90'))
    gen_fortran_f08.write_test(api, os.path.join(outdir, 'ftest_all_f08.f90'))
    return 0


if __name__ == '__main__':
    # Run as the imported module: gen_fortran_f08 imports it, and its tables
    # (HANDLE_OF) must be the ones main() fills.
    import gen_fortran
    sys.exit(gen_fortran.main(sys.argv[1:]))
