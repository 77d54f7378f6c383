"""gen_fortran_f08.py -- module mpi_f08 and its compile test, for
spec/gen_fortran.py (which imports this and writes the files).

Each function is a module procedure with the Fortran 2008 binding's
arguments (TYPE(MPI_Comm) and the other handle types, TYPE(MPI_Status),
OPTIONAL ierror, ASYNCHRONOUS buffers of nonblocking calls) that calls the
same C function as mpif.h, under a second name (cmf08_send_ for mpi_send_,
hidden in libmpifort): a handle type is one INTEGER (its MPI_VAL) and
TYPE(MPI_Status) is MPI_Status's 8 integers, so both pass as they are.
Choice buffers are TYPE(*), DIMENSION(..) (TS 29113): a contiguous one is
passed to C as its address (C_LOC), a non-contiguous section through
cmf_section (src/fortran/section.c), which gives back its address and the
datatype that describes it in place, so MPI_SUBARRAYS_SUPPORTED is .TRUE.
"""
import re

import spec
import gen_fortran as g

HANDLE_TYPES = ['Comm', 'Datatype', 'Group', 'Info', 'Op', 'Request', 'Errhandler',
                'Message', 'Session', 'Win', 'File']


def f08_decl(p):
    """(type, attributes, dims) of parameter p in the f08 binding."""
    t = p.base
    intent = {'in': 'INTENT(IN)', 'out': 'INTENT(OUT)', 'inout': 'INTENT(INOUT)'}[p.dir]
    dims = ''
    if p.dims:
        dims = '(' + ','.join(p.dims[1:] + ['*']) + ')'
    if t in spec.HANDLES:
        return 'TYPE(MPI_%s)' % t, intent, dims
    if t == 'Status':
        return 'TYPE(MPI_Status)', intent, dims
    if t == 'ptr':
        return 'TYPE(C_PTR)', intent, dims
    if spec.is_callback(t):
        return 'EXTERNAL', '', ''
    ty, fdims = g.ftype(p)
    if ty == 'CHARACTER*(*)':
        ty = 'CHARACTER(LEN=*)'
    return ty, intent, fdims if t in ('argv', 'string') else dims or fdims


def signature(fn):
    """What tells fn's form apart in a generic: per argument its type (the
    three 8-byte kinds are one) and whether it is an array; None for a
    buffer, which matches anything."""
    sig = []
    for p in g.fparams(fn):
        if p.buf is not None or p.base == 'loc':
            sig.append((p.name, None))
            continue
        ty, _, dims = f08_decl(p)
        sig.append((p.name, (re.sub(r'INTEGER\(KIND=MPI_\w+_KIND\)', 'I8', ty), bool(dims))))
    return sig


def distinguishable(plain, large):
    """Whether a generic may hold both forms: the same argument names, and
    one position where both have a type and the types differ (F2008 C1215:
    then both the position and the name tell them apart)."""
    a, b = signature(plain), signature(large)
    if [n for n, _ in a] != [n for n, _ in b]:
        return False
    return any(x is not None and y is not None and x != y for (_, x), (_, y) in zip(a, b))


def procedure(fn, pname=None):
    """The module procedure of fn, named pname (default: fn's name)."""
    pname = pname or fn.name
    ps = [p for p in g.fparams(fn)]
    names = [p.name for p in ps]
    sub = g.has_ierror(fn)
    ext = 'cmf08_' + fn.name[4:].lower()
    head = ('SUBROUTINE %s(%s)' if sub else 'FUNCTION %s(%s)') % (
        pname, ', '.join(names + (['ierror'] if sub else [])))
    out = g.free_cont(head)
    body = []
    for p in ps:
        if is_choice(p):
            asy = ', ASYNCHRONOUS' if 'async' in p.attrs else ''
            body.append('TYPE(*), DIMENSION(..), TARGET%s :: %s' % (asy, p.name))
            continue
        ty, intent, dims = f08_decl(p)
        if ty == 'EXTERNAL':
            body.append('EXTERNAL :: %s' % p.name)
            continue
        attrs = [ty] + ([intent] if intent else []) + (['ASYNCHRONOUS'] if 'async' in p.attrs else [])
        body.append('%s :: %s%s' % (', '.join(attrs), p.name, dims))
    decls, pre, post, resolved = choice_buffers(fn)
    guarded = bool(decls)
    args = []
    for p in ps:
        if is_choice(p):
            args.append('cmf_' + p.name)
        elif p.name in resolved:    # a datatype or a count a section may replace
            args.append(('cmf_t_' if p.base == 'Datatype' else 'cmf_n_') + p.name)
        elif p.base in spec.HANDLES and not p.dims:
            args.append('%s%%MPI_VAL' % p.name)
        else:
            args.append(p.name)
    body += ext_interface(fn, ext)
    body += decls
    if sub:
        body.append('INTEGER, OPTIONAL, INTENT(OUT) :: ierror')
        body.append('INTEGER :: ierror_c')
        body += pre
        call = g.free_cont('CALL %s(%s)' % (ext, ', '.join(args + ['ierror_c'])))
        if guarded:     # a section failed: its error is the call's
            body += ['IF (cmf_err == MPI_SUCCESS) THEN'] + ['  ' + c for c in call]
            body += ['ELSE', '  ierror_c = cmf_err', 'END IF']
        else:
            body += call
        body += post
        body.append('IF (PRESENT(ierror)) ierror = ierror_c')
    else:
        ty = 'DOUBLE PRECISION' if fn.ret == 'double' else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        body.append('%s :: %s' % (ty, pname))
        body += pre
        body += g.free_cont('%s = %s(%s)' % (pname, ext, ', '.join(args)))
        body += post
    out += ['  ' + b for b in body]
    out.append('END %s %s' % ('SUBROUTINE' if sub else 'FUNCTION', pname))
    return out


def is_choice(p):
    return p.buf is not None or p.base == 'loc'


def choice_buffers(fn):
    """The code that turns fn's TYPE(*), DIMENSION(..) buffers into what the
    C function takes: (declarations, code before the call, code after it,
    the datatype parameters a section may replace).  A contiguous buffer
    (the common case: one IS_CONTIGUOUS test) passes C_LOC(buf) and the
    datatype as they are (a scalar without even that test); a section calls cmf_section (section.c), which
    gives the address and a datatype resized to the section's stride, for
    cmf_t_<datatype>; it is freed after the call.  When the count and the
    datatype are that buffer's alone and the call reduces nothing, a section
    whose elements are not equally spaced may also change the count, for
    cmf_n_<count>."""
    ps = g.fparams(fn)
    handles = {p.name for p in ps if p.base == 'Datatype' and not p.dims}
    obj = [p for p in ps if p.base in ('Comm', 'Win') and not p.dims]
    obj_kind = {'Comm': 1, 'Win': 2}[obj[0].base] if obj else 0
    obj_val = '%s%%MPI_VAL' % obj[0].name if obj else '0'
    bufs = [p for p in ps if is_choice(p)]
    if not bufs:
        return [], [], [], set()
    decls = ['TYPE(C_PTR) :: ' + ', '.join('cmf_' + p.name for p in bufs)]
    pre, post = [], []
    users = {}      # datatype parameter -> the buffers it describes
    counted = {}    # count parameter -> the buffers it counts
    for p in bufs:
        dt = p.buf[1] if p.buf is not None else None
        if dt in handles:
            users.setdefault(dt, []).append(p)
        if p.buf is not None:
            counted.setdefault(p.buf[0], []).append(p)
    resolved = set(users)
    ints = {q.name for q in ps if q.base == 'int' and not q.dims}
    reduces = any(q.base == 'Op' for q in ps)

    def own_count(p):
        # count and datatype this buffer's alone, no reduction: a section
        # that one resized datatype cannot describe may change both
        c, dt, displs = p.buf
        return (not reduces and displs is None and c in ints and len(counted[c]) == 1
                and len(users.get(dt, [])) == 1)
    owned = {p.buf[0] for p in bufs if p.buf is not None and p.buf[1] in resolved and own_count(p)}
    # cmf_t_none, cmf_s_none: the state of a buffer with no datatype to resize
    decls.append('INTEGER :: ' + ', '.join(['cmf_err'] + ['cmf_t_' + d for d in sorted(resolved) + ['none']]
                                           + ['cmf_n_' + c for c in sorted(owned) + ['none']]))
    decls.append('INTEGER(KIND=MPI_ADDRESS_KIND) :: ' + ', '.join('cmf_s_' + d for d in sorted(resolved) + ['none']))
    pre += ['cmf_err = MPI_SUCCESS', 'cmf_t_none = 0', 'cmf_s_none = 0', 'cmf_n_none = 0']
    pre += ['cmf_n_%s = %s' % (c, c) for c in sorted(owned)]
    for d in sorted(resolved):
        pre += ['cmf_t_%s = %s%%MPI_VAL' % (d, d), 'cmf_s_%s = 0' % d]
    for p in bufs:
        dt = p.buf[1] if p.buf is not None else None
        n = 'none'
        if p.base == 'loc':
            mode, dval, d = 0, '0', 'none'
        elif dt in resolved and p.buf[0] in owned:
            mode, dval, d, n = 3, '%s%%MPI_VAL' % dt, dt, p.buf[0]
        elif dt in resolved:
            mode, dval, d = 1, '%s%%MPI_VAL' % dt, dt
        else:
            mode, dval, d = 2, '0', 'none'
        # RANK is read inline from the descriptor, IS_CONTIGUOUS is a call
        # into libgfortran: a scalar (a sentinel, a ping-pong's 8 bytes)
        # skips it
        pre += ['IF (RANK(%s) == 0) THEN' % p.name, '  cmf_%s = C_LOC(%s)' % (p.name, p.name),
                'ELSE IF (IS_CONTIGUOUS(%s)) THEN' % p.name, '  cmf_%s = C_LOC(%s)' % (p.name, p.name), 'ELSE']
        pre += ['  ' + l for l in g.free_cont(
            "CALL cmf_section(%s, %d, %s, cmf_n_%s, cmf_t_%s, cmf_s_%s, cmf_%s, %d, %s, '%s'//C_NULL_CHAR, "
            "'%s'//C_NULL_CHAR, cmf_err)" % (p.name, mode, dval, n, d, d, p.name, obj_kind, obj_val,
                                             fn.name, p.name))]
        pre.append('END IF')
    for d in sorted(resolved):
        if len(users[d]) > 1:   # a contiguous buffer beside a section of the same datatype
            pre.append('IF (cmf_s_%s /= 0) THEN' % d)
            for p in users[d]:
                pre += ['  ' + l for l in g.free_cont(
                    "IF (IS_CONTIGUOUS(%s)) CALL cmf_section_mixed(cmf_%s, %d, %s, '%s'//C_NULL_CHAR, "
                    "'%s'//C_NULL_CHAR, cmf_err)" % (p.name, p.name, obj_kind, obj_val, fn.name, p.name))]
            pre.append('END IF')
        post.append('IF (cmf_s_%s /= 0) CALL cmf_section_free(cmf_t_%s)' % (d, d))
    return decls, pre, post, resolved | owned


# The C side of the sections (src/fortran/section.c), private to the module.
SECTION_INTERFACES = '''INTERFACE
SUBROUTINE cmf_section(d, mode, dtype, count, resolved, stride, base, obj_kind, obj, call, arg, err) BIND(C)
  IMPORT :: C_PTR, C_INT, C_CHAR, MPI_ADDRESS_KIND
  TYPE(*), DIMENSION(..) :: d
  INTEGER(C_INT), INTENT(IN) :: mode, dtype, obj_kind, obj
  INTEGER(C_INT), INTENT(INOUT) :: count, resolved, err
  INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(INOUT) :: stride
  TYPE(C_PTR), INTENT(OUT) :: base
  CHARACTER(KIND=C_CHAR), DIMENSION(*), INTENT(IN) :: call, arg
END SUBROUTINE cmf_section
SUBROUTINE cmf_section_mixed(p, obj_kind, obj, call, arg, err) BIND(C)
  IMPORT :: C_PTR, C_INT, C_CHAR
  TYPE(C_PTR), INTENT(IN) :: p
  INTEGER(C_INT), INTENT(IN) :: obj_kind, obj
  INTEGER(C_INT), INTENT(INOUT) :: err
  CHARACTER(KIND=C_CHAR), DIMENSION(*), INTENT(IN) :: call, arg
END SUBROUTINE cmf_section_mixed
SUBROUTINE cmf_section_free(t) BIND(C)
  IMPORT :: C_INT
  INTEGER(C_INT), INTENT(INOUT) :: t
END SUBROUTINE cmf_section_free
END INTERFACE
PRIVATE :: cmf_section, cmf_section_mixed, cmf_section_free
'''


def ext_interface(fn, ext):
    """The explicit interface of the C function a procedure calls (needed
    for its NO_ARG_CHECK buffers): the procedure's own declarations, a
    scalar handle as its INTEGER MPI_VAL."""
    sub = g.has_ierror(fn)
    ps = g.fparams(fn)
    names = [p.name for p in ps] + (['ierror'] if sub else [])
    out = g.free_cont(('SUBROUTINE %s(%s)' if sub else 'FUNCTION %s(%s)') % (ext, ', '.join(names)))
    out.append('  IMPORT')
    for p in ps:
        if is_choice(p):    # its address (C's void *buf)
            out.append('  TYPE(C_PTR), VALUE :: %s' % p.name)
            continue
        ty, _, dims = f08_decl(p)
        if p.base in spec.HANDLES and not p.dims:
            ty = 'INTEGER'
        out.append('  EXTERNAL :: %s' % p.name if ty == 'EXTERNAL' else '  %s :: %s%s' % (ty, p.name, dims))
    if sub:
        out.append('  INTEGER :: ierror')
    else:
        out.append('  %s :: %s' % ('DOUBLE PRECISION' if fn.ret == 'double' else 'INTEGER(KIND=MPI_ADDRESS_KIND)', ext))
    out.append('END %s %s' % ('SUBROUTINE' if sub else 'FUNCTION', ext))
    return ['INTERFACE'] + out + ['END INTERFACE']


# The hand-bound ones (src/fortran/manual.c): C names cmf08_init_ ...
MANUAL_PROCEDURES = '''SUBROUTINE MPI_Init(ierror)
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  INTEGER :: ierror_c
  EXTERNAL :: cmf08_init
  CALL cmf08_init(ierror_c)
  IF (PRESENT(ierror)) ierror = ierror_c
END SUBROUTINE MPI_Init
SUBROUTINE MPI_Init_thread(required, provided, ierror)
  INTEGER, INTENT(IN) :: required
  INTEGER, INTENT(OUT) :: provided
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  INTEGER :: ierror_c
  EXTERNAL :: cmf08_init_thread
  CALL cmf08_init_thread(required, provided, ierror_c)
  IF (PRESENT(ierror)) ierror = ierror_c
END SUBROUTINE MPI_Init_thread
SUBROUTINE MPI_Info_create_env(info, ierror)
  TYPE(MPI_Info), INTENT(OUT) :: info
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  INTEGER :: ierror_c
  EXTERNAL :: cmf08_info_create_env
  CALL cmf08_info_create_env(info%MPI_VAL, ierror_c)
  IF (PRESENT(ierror)) ierror = ierror_c
END SUBROUTINE MPI_Info_create_env
SUBROUTINE MPI_Pcontrol(level)
  INTEGER, INTENT(IN) :: level
  EXTERNAL :: cmf08_pcontrol
  CALL cmf08_pcontrol(level)
END SUBROUTINE MPI_Pcontrol
'''


def constants_f08(consts):
    """The constants: handles as TYPE(MPI_<Handle>) parameters, the rest as
    in mpif.h; the sentinels in the same common blocks (so the C side sees
    the same addresses), MPI_STATUS(ES)_IGNORE as TYPE(MPI_Status)."""
    out = []
    for name, v in g.FORTRAN_ONLY:
        out.append('INTEGER, PARAMETER :: %s = %d' % (name, v))
    seen = {n.upper() for n, _ in g.FORTRAN_ONLY}
    for name, v in consts:
        if name.upper() in seen:
            continue
        seen.add(name.upper())
        h = g.HANDLE_OF.get(name)
        if h:
            out.append('TYPE(MPI_%s), PARAMETER :: %s = MPI_%s(%d)' % (h, name, h, v))
        elif name == 'MPI_DISPLACEMENT_CURRENT':
            out.append('INTEGER(KIND=MPI_OFFSET_KIND), PARAMETER :: %s = %d' % (name, v))
        else:
            out.append('INTEGER, PARAMETER :: %s = %d' % (name, v))
    for name, ty, dims in g.SENTINELS:
        if name == 'MPI_STATUS_IGNORE':
            ty, dims = 'TYPE(MPI_Status)', ''
        elif name == 'MPI_STATUSES_IGNORE':
            ty, dims = 'TYPE(MPI_Status)', '(1)'
        out += ['%s :: %s%s' % (ty.replace('*1', '(LEN=1)'), name, dims),
                'COMMON /MPI_FORTRAN_%s/ %s' % (name[4:], name)]
    return out


def types_f08():
    out = []
    for h in HANDLE_TYPES:
        out += ['TYPE, BIND(C) :: MPI_%s' % h, '  INTEGER(C_INT) :: MPI_VAL', 'END TYPE MPI_%s' % h]
    out += ['TYPE, BIND(C) :: MPI_Status',
            '  INTEGER(C_INT) :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
            '  INTEGER(C_INT), PRIVATE :: MPI_internal(5)',
            'END TYPE MPI_Status']
    # == and /= on handles
    eq = ['INTERFACE OPERATOR(==)'] + ['  MODULE PROCEDURE cmf08_eq_%s' % h for h in HANDLE_TYPES]
    eq += ['END INTERFACE', 'INTERFACE OPERATOR(/=)']
    eq += ['  MODULE PROCEDURE cmf08_ne_%s' % h for h in HANDLE_TYPES] + ['END INTERFACE']
    return out + eq


# The callbacks' abstract interfaces (MPI-4.1 19.1.x), for a program's
# PROCEDURE(MPI_User_function) declarations; the dummies of the calls that
# take them stay EXTERNAL.  Each matches what the C side passes (keyval.c,
# grequest.c, the pass-through ones: gen_fortran.PASS_THROUGH_CB).
CALLBACK_INTERFACES = '''ABSTRACT INTERFACE
SUBROUTINE MPI_User_function(invec, inoutvec, len, datatype)
  IMPORT :: C_PTR, MPI_Datatype
  TYPE(C_PTR), VALUE :: invec, inoutvec
  INTEGER :: len
  TYPE(MPI_Datatype) :: datatype
END SUBROUTINE MPI_User_function
SUBROUTINE MPI_User_function_c(invec, inoutvec, len, datatype)
  IMPORT :: C_PTR, MPI_Datatype, MPI_COUNT_KIND
  TYPE(C_PTR), VALUE :: invec, inoutvec
  INTEGER(KIND=MPI_COUNT_KIND) :: len
  TYPE(MPI_Datatype) :: datatype
END SUBROUTINE MPI_User_function_c
%(errh)s%(attr)sSUBROUTINE MPI_Grequest_query_function(extra_state, status, ierror)
  IMPORT :: MPI_ADDRESS_KIND, MPI_Status
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
  TYPE(MPI_Status) :: status
  INTEGER :: ierror
END SUBROUTINE MPI_Grequest_query_function
SUBROUTINE MPI_Grequest_free_function(extra_state, ierror)
  IMPORT :: MPI_ADDRESS_KIND
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
  INTEGER :: ierror
END SUBROUTINE MPI_Grequest_free_function
SUBROUTINE MPI_Grequest_cancel_function(extra_state, complete, ierror)
  IMPORT :: MPI_ADDRESS_KIND
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
  LOGICAL :: complete
  INTEGER :: ierror
END SUBROUTINE MPI_Grequest_cancel_function
END INTERFACE
''' % {
    'errh': ''.join('''SUBROUTINE MPI_%(k)s_errhandler_function(%(o)s, error_code)
  IMPORT :: MPI_%(k)s
  TYPE(MPI_%(k)s) :: %(o)s
  INTEGER :: error_code
END SUBROUTINE MPI_%(k)s_errhandler_function
''' % {'k': k, 'o': k.lower()} for k in ('Comm', 'Win', 'Session')),
    'attr': ''.join('''SUBROUTINE MPI_%(k)s_copy_attr_function(old%(o)s, %(o)s_keyval, extra_state, attribute_val_in, &
    attribute_val_out, flag, ierror)
  IMPORT :: MPI_%(t)s, MPI_ADDRESS_KIND
  TYPE(MPI_%(t)s) :: old%(o)s
  INTEGER :: %(o)s_keyval, ierror
  INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
  LOGICAL :: flag
END SUBROUTINE MPI_%(k)s_copy_attr_function
SUBROUTINE MPI_%(k)s_delete_attr_function(%(o)s, %(o)s_keyval, attribute_val, extra_state, ierror)
  IMPORT :: MPI_%(t)s, MPI_ADDRESS_KIND
  TYPE(MPI_%(t)s) :: %(o)s
  INTEGER :: %(o)s_keyval, ierror
  INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
END SUBROUTINE MPI_%(k)s_delete_attr_function
''' % {'k': k, 'o': k.lower(), 't': t} for k, t in (('Comm', 'Comm'), ('Type', 'Datatype'), ('Win', 'Win'))),
}


def compare_procs():
    out = []
    for h in HANDLE_TYPES:
        for op, sym in (('eq', '=='), ('ne', '/=')):
            out += ['ELEMENTAL LOGICAL FUNCTION cmf08_%s_%s(a, b)' % (op, h),
                    '  TYPE(MPI_%s), INTENT(IN) :: a, b' % h,
                    '  cmf08_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' % (op, h, sym),
                    'END FUNCTION cmf08_%s_%s' % (op, h)]
    return out


def write_module(api, consts, path):
    out = ['! module mpi_f08: generated by spec/gen_fortran.py (gen_fortran_f08.py); do not edit',
           'MODULE mpi_f08',
           'USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR, C_INT, C_CHAR, C_LOC, C_NULL_CHAR',
           'IMPLICIT NONE',
           ] + g.free_cont('PRIVATE :: ' + ', '.join('cmf08_%s_%s' % (op, h) for h in HANDLE_TYPES for op in ('eq', 'ne')))
    out = out + types_f08() + constants_f08(consts)
    out += ['EXTERNAL :: %s' % n for n in g.PREDEF_CALLBACKS]
    out += CALLBACK_INTERFACES.splitlines()
    out += SECTION_INTERFACES.splitlines()
    out.append('LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .TRUE.')
    out.append('LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.')
    out += ['INTERFACE MPI_Sizeof', '  MODULE PROCEDURE cmf_sizeof', 'END INTERFACE', 'PRIVATE :: cmf_sizeof']
    # A function with a distinguishable _c form is a generic name over two
    # procedures, NAME_f08 and NAME_c_f08 (the count's kind picks).
    larges = {f.base.name: f for f in g.bound_large(api)}
    procs = []
    for fn in g.bound(api):
        lf = larges.get(fn.name)
        if lf is not None and distinguishable(fn, lf):
            out += ['INTERFACE %s' % fn.name,
                    '  MODULE PROCEDURE %s_f08, %s_c_f08' % (fn.name, fn.name), 'END INTERFACE']
            procs += procedure(fn, fn.name + '_f08') + procedure(lf, fn.name + '_c_f08')
        else:
            procs += procedure(fn)
    out.append('CONTAINS')
    out += compare_procs()
    out += g.SIZEOF_PROCEDURE.replace('INTEGER, INTENT(OUT) :: ierror', 'INTEGER, OPTIONAL, INTENT(OUT) :: ierror') \
        .replace('  ierror = MPI_SUCCESS', '  IF (PRESENT(ierror)) ierror = MPI_SUCCESS').splitlines()
    out += procs
    out += MANUAL_PROCEDURES.splitlines()
    out.append('END MODULE mpi_f08')
    g.write(path, '\n'.join(out) + '\n')


def test_args(fn):
    args = []
    for p in g.fparams(fn):
        t = p.base
        if t in spec.HANDLES:
            args.append(('ha_' if p.dims else 'h_') + t.lower())
        elif t == 'Status':
            args.append('sts' if p.dims else 'st')
        elif t == 'ptr':
            args.append('cp')
        else:
            args += g.test_args_of([p])
    return args


def write_test(api, path):
    lines = ['PROGRAM ftest_all_f08', 'USE mpi_f08', 'USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR',
             'IMPLICIT NONE',
             'INTEGER ival, iarr(16), ierr',
             'LOGICAL lval, larr(4)',
             'INTEGER(KIND=MPI_ADDRESS_KIND) aval, aarr(4)',
             'INTEGER(KIND=MPI_COUNT_KIND) cval, carr(4)',
             'INTEGER(KIND=MPI_OFFSET_KIND) oval',
             'DOUBLE PRECISION dval', 'REAL rbuf(16)', 'CHARACTER*(64) str, sarr(4), sarr2(4,4)',
             'TYPE(MPI_Status) st, sts(4)', 'TYPE(C_PTR) cp', 'EXTERNAL myop, myerrh']
    for h in HANDLE_TYPES:
        lines.append('TYPE(MPI_%s) h_%s, ha_%s(16)' % (h, h.lower(), h.lower()))
    lines += ['ival = 0', 'aval = 0', 'cval = 0', 'oval = 0', 'lval = .FALSE.',
              'IF (COMMAND_ARGUMENT_COUNT() .LT. 99) STOP']
    for i, fn in enumerate(g.bound(api)):
        a = test_args(fn)
        if g.has_ierror(fn):
            # ierror given to every other call: both forms compile
            lines += g.free_cont('CALL %s(%s)' % (fn.name, ', '.join(a + (['ierr'] if i % 2 else []))))
        elif fn.ret == 'double':
            lines.append('dval = %s(%s)' % (fn.name, ', '.join(a)))
        else:
            lines.append('aval = %s(%s)' % (fn.name, ', '.join(a)))
    larges = {f.base.name: f for f in g.bound_large(api)}
    for fn in g.bound(api):
        lf = larges.get(fn.name)
        if lf is not None and distinguishable(fn, lf):
            lines += g.free_cont('CALL %s(%s)' % (fn.name, ', '.join(test_args(lf))))
    lines += ['CALL MPI_Init()', 'CALL MPI_Init_thread(ival, ival, ierr)',
              'CALL MPI_Info_create_env(h_info)', 'CALL MPI_Pcontrol(ival)',
              'IF (h_comm == MPI_COMM_WORLD .OR. h_comm /= MPI_COMM_NULL) STOP',
              'END PROGRAM ftest_all_f08',
              'SUBROUTINE myop(a, b, n, t)', 'INTEGER a(*), b(*), n, t', 'END',
              'SUBROUTINE myerrh(c, e)', 'INTEGER c, e', 'END']
    g.write(path, '\n'.join(lines) + '\n')
