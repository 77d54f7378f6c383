#!/usr/bin/env python3
"""spec.py -- reader and checker of corempi's API spec (spec/*.api).

The spec declares every MPI function corempi exports, one block per
function; docs/spec.md gives the syntax.  Generators import this module:

    import spec
    api = spec.load('spec')            # raises spec.SpecError on a bad file
    for fn in api.functions():         # every exported name, _c forms too
        print(fn.name, fn.c_prototype())

Run as a program it checks the spec (see main()).  Nothing here knows C
beyond the mapping of a parameter's type and direction to its C type,
which is the one rule the prototype check holds the spec to.
"""
import os
import re
import sys

DIRS = ('in', 'out', 'inout')
# Scalar value types: spec name -> C type.
VALUES = {'int': 'int', 'bool': 'int', 'Count': 'MPI_Count', 'Aint': 'MPI_Aint',
          'Offset': 'MPI_Offset', 'Fint': 'MPI_Fint', 'double': 'double'}
# Handles and the tool interface's opaque/enumerated types: C type MPI_<name>.
HANDLES = {'Comm', 'Group', 'Datatype', 'Op', 'Request', 'Info', 'Errhandler',
           'Message', 'Session', 'Win', 'File', 'T_enum', 'T_cvar_handle',
           'T_pvar_handle', 'T_pvar_session', 'T_event_registration',
           'T_event_instance', 'T_cb_safety', 'T_source_order'}
# Types that are neither values nor handles (see docs/spec.md).
SPECIAL_TYPES = {'buf', 'ptr', 'attrval', 'loc', 'string', 'char', 'argv', 'Status', 'varargs'}
KINDS = {'count', 'disp', 'rank', 'tag', 'errcode', 'keyval', 'strlen'}
ATTRS = {'async', 'byref', 'const', 'exposed'}
FLAGS = {'collective', 'anytime', 'anythread', 'large', 'deprecated', 'removed', 'manual', 'norecord', 'bodycheck'}
# Flags with a value (NAME=VALUE): where the front end of a generated chapter
# goes (docs/spec.md, "Front ends").  impl/layer for the block's plain form,
# impl_c/layer_c for its _c form.
VALUED_FLAGS = {'impl', 'impl_c', 'layer', 'layer_c'}
# Functions a length expression may call: facts of a communicator or sum of an array.
LEN_FUNCS = {'size', 'rsize', 'rank', 'indegree', 'outdegree', 'ndims', 'sum'}
RETURNS = {'int': 'int', 'double': 'double', 'Aint': 'MPI_Aint'}
RETURNS.update({h: 'MPI_' + h for h in ('Comm', 'Group', 'Datatype', 'Op', 'Request', 'Info',
                                        'Errhandler', 'Message', 'Session', 'Win', 'File')})


class SpecError(Exception):
    pass


def is_callback(t):
    return t.endswith('_function') or t.endswith('_function_c')


def known_type(t):
    return t in VALUES or t in HANDLES or t in SPECIAL_TYPES or is_callback(t)


class Param:
    """One parameter.  base/base_c: the type in the plain and the _c form
    ('-' in the plain form: the parameter exists only in the _c form);
    dims: the array length expressions ([] for a scalar); buf: for a
    buffer, (count expression, datatype, displacements or None)."""

    def __init__(self, where, fields):
        self.where = where
        if len(fields) < 3:
            raise SpecError('%s: a parameter needs name, direction and type' % where)
        self.name, self.dir, ty = fields[0], fields[1], fields[2]
        if self.dir not in DIRS:
            raise SpecError('%s: direction %r is not one of %s' % (where, self.dir, DIRS))
        self.kind = None
        self.specials = []
        self.attrs = set()
        for f in fields[3:]:
            if f.startswith('+'):     # MPI_<NAME>; compare_prototypes checks it exists
                if not re.match(r'[A-Z][A-Z0-9_]*$', f[1:]):
                    raise SpecError('%s: a special value is +NAME for MPI_NAME, not %s' % (where, f))
                self.specials.append(f[1:])
            elif f in KINDS:
                self.kind = f
            elif f in ATTRS:
                self.attrs.add(f)
            else:
                raise SpecError('%s: unknown word %r' % (where, f))
        self.buf = None
        self.dims = []
        m = re.match(r'buf\((.*)\)$', ty)
        if m:
            parts = [p.strip() for p in split_top(m.group(1))]
            if len(parts) not in (1, 2, 3):
                raise SpecError('%s: buf(count, datatype[, displs]) or buf(handle) expected' % where)
            if len(parts) == 1:     # count and datatype are those of a tool handle
                parts = [parts[0], parts[0]]
            self.buf = (parts[0], parts[1], parts[2] if len(parts) == 3 else None)
            self.base = self.base_c = 'buf'
            return
        m = re.match(r'([A-Za-z_0-9-]+)(?:\|([A-Za-z_0-9]+))?((?:\[[^\]]*(?:\[[^\]]*\][^\]]*)*\])*)$', ty)
        if not m:
            raise SpecError('%s: cannot read type %r' % (where, ty))
        self.base, self.base_c = m.group(1), m.group(2) or m.group(1)
        for t in (self.base, self.base_c):
            if t != '-' and not known_type(t):
                raise SpecError('%s: unknown type %r' % (where, t))
        self.dims = split_dims(m.group(3), where)
        if self.base == 'char' and len(self.dims) != 1:
            raise SpecError('%s: char needs its length: char[LEN]' % where)

    def c_type(self, large=False):
        """The C declaration of this parameter (name included), or None if
        it is absent from that form."""
        t = self.base_c if large else self.base
        n = self.name
        if t == '-':
            return None
        if t == 'varargs':
            return '...'
        if t == 'buf':
            return ('const void *' if self.dir == 'in' and 'exposed' not in self.attrs else 'void *') + n
        if t in ('ptr', 'attrval', 'loc'):
            return ('const void *' if 'const' in self.attrs else 'void *') + n
        if t == 'char':
            return 'char *' + n
        if t == 'Status':
            return ('const MPI_Status *' if self.dir == 'in' else 'MPI_Status *') + n
        if t == 'argv':
            inner = 'char **' if self.dir == 'in' or self.dims else 'char ***'
            return inner + n + ('[]' if self.dims else '')
        if t == 'string':
            if self.dims:
                return 'char *' + n + '[]'
            return 'const char *' + n
        if is_callback(t):
            return 'MPI_%s *%s' % (t, n)
        c = VALUES.get(t) or 'MPI_' + t
        if self.dims:
            # C's bindings const an input array, but not an array of arrays
            # (MPI_Group_range_incl's int ranges[][3])
            const = 'const ' if self.dir == 'in' and len(self.dims) == 1 else ''
            return '%s%s %s[]%s' % (const, c, n, ''.join('[%s]' % d for d in self.dims[1:]))
        if self.dir == 'in' and 'byref' not in self.attrs:
            return '%s %s' % (c, n)
        return '%s *%s' % (c, n)


def split_outside(s, is_sep, where='spec'):
    """Split s at the characters is_sep accepts that are outside ( ) and [ ]."""
    out, depth, cur = [], 0, ''
    for ch in s:
        depth += (ch in '([') - (ch in ')]')
        if depth == 0 and is_sep(ch):
            out.append(cur)
            cur = ''
        else:
            cur += ch
    if depth:
        raise SpecError('%s: unbalanced brackets' % where)
    return out + [cur]


def split_top(s):
    return split_outside(s, lambda ch: ch == ',')


def split_dims(s, where):
    dims, depth, cur = [], 0, ''
    for ch in s:
        if ch == '[':
            depth += 1
            if depth == 1:
                cur = ''
                continue
        elif ch == ']':
            depth -= 1
            if depth == 0:
                dims.append(cur.strip())
                continue
        cur += ch
    if depth:
        raise SpecError('%s: unbalanced [ ]' % where)
    return dims


class Function:
    def __init__(self, name, ret, flags, chapter, where, values=None):
        self.name, self.ret, self.flags = name, ret, flags
        self.chapter, self.where = chapter, where
        self.values = values or {}   # the NAME=VALUE flags of the block
        self.params = []
        self.large = False      # True for the _c form made from a 'large' block
        self.base = self        # the block this function comes from

    def large_form(self):
        f = Function(self.name + '_c', self.ret, self.flags, self.chapter, self.where, self.values)
        f.params, f.large, f.base = self.params, True, self
        return f

    def impl(self):
        """The internal function the generated front end calls: impl= (impl_c=
        for the _c form), else cm_ and the name without MPI_."""
        return self.values.get('impl_c' if self.large else 'impl', 'cm_' + self.name[4:])

    def layer(self, api):
        """The layer (src/layers.txt) the front end compiles in: layer=
        (layer_c= for the _c form, else the block's), else the chapter's."""
        v = self.values
        return (self.large and v.get('layer_c')) or v.get('layer') or api.frontends.get(self.chapter)

    def arg_names(self):
        """The parameter names of this form, in order (varargs excluded)."""
        return [p.name for p in self.params
                if (p.base_c if self.large else p.base) not in ('-', 'varargs')]

    def c_params(self):
        """The C parameter declarations, in order."""
        return [c for c in (p.c_type(self.large) for p in self.params) if c is not None]

    def c_prototype(self, prefix='MPI_'):
        ps = self.c_params() or ['void']
        return '%s %s%s(%s)' % (RETURNS[self.ret], prefix, self.name[4:], ', '.join(ps))


class Api:
    def __init__(self):
        self.blocks = []        # Function, as written (one per block)
        self.chapters = {}      # file stem -> (number, title)
        self.frontends = {}     # file stem -> layer, for chapters whose front ends are generated
        self.checks = set()     # file stems whose front ends check their arguments (gen_checks.py)

    def functions(self):
        """Every function the spec declares, the _c forms after their block."""
        for b in self.blocks:
            yield b
            if 'large' in b.flags:
                yield b.large_form()

    def by_name(self):
        return {f.name: f for f in self.functions()}


def load(directory):
    """Read every *.api file of directory (sorted by chapter number)."""
    api = Api()
    files = [f for f in os.listdir(directory) if f.endswith('.api')]
    if not files:
        raise SpecError('%s: no .api files' % directory)
    for fname in files:
        read_file(api, os.path.join(directory, fname))
    api.blocks.sort(key=lambda f: (api.chapters[f.chapter][0], 0))
    return api


def load_checked(directory, who, more_checks=None):
    """load + validate (+ more_checks(api), a list of errors) for a
    generator: the Api, or None after printing each error prefixed by who."""
    try:
        api = load(directory)
    except SpecError as e:
        print('%s: %s' % (who, e))
        return None
    errors = validate(api) + (more_checks(api) if more_checks else [])
    for e in errors:
        print('%s: %s' % (who, e))
    return None if errors else api


def generator_api(argv, nargs, doc, who, more_checks=None):
    """The start every generator's main shares: argv (its words, any option
    it takes already taken off) must be nargs long, else its usage (doc) goes
    to stderr; then load_checked of the spec folder argv[0].  Returns (api,
    None), or (None, the exit status: 2 for the usage, 1 for a bad spec)."""
    if len(argv) != nargs:
        sys.stderr.write(doc)
        return None, 2
    api = load_checked(argv[0], who, more_checks)
    return (api, None) if api is not None else (None, 1)


def write_if_changed(path, text):
    """Writes text to path unless it holds it already, so that what is built
    from a generated file keeps its time stamp when the file's text stays."""
    try:
        with open(path) as fh:
            if fh.read() == text:
                return
    except OSError:
        pass
    tmp = path + '.tmp'
    with open(tmp, 'w') as fh:
        fh.write(text)
    os.replace(tmp, path)


def read_file(api, path):
    stem = os.path.basename(path)[:-4]
    fn = None
    with open(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            where = '%s:%d' % (path, lineno)
            line = raw.split('#', 1)[0].rstrip()
            if not line.strip():
                continue
            if line.startswith('chapter '):
                words = line.split(None, 2)
                api.chapters[stem] = (float(words[1]), words[2] if len(words) > 2 else '')
                continue
            if line.startswith('frontends '):
                words = line.split()
                if len(words) not in (2, 3) or words[2:] not in ([], ['checks']):
                    raise SpecError('%s: "frontends LAYER [checks]" names one layer of src/layers.txt' % where)
                api.frontends[stem] = words[1]
                if words[2:]:
                    api.checks.add(stem)
                continue
            if not line[0].isspace():
                if stem not in api.chapters:
                    raise SpecError('%s: a "chapter N Title" line comes first' % where)
                words = line.split()
                name, ret, rest = words[0], 'int', words[1:]
                if not re.match(r'MPI_[A-Za-z0-9_]+$', name):
                    raise SpecError('%s: %r is not a function name' % (where, name))
                if rest[:1] == ['->']:
                    if len(rest) < 2 or rest[1] not in RETURNS:
                        raise SpecError('%s: return type after -> is one of %s' % (where, sorted(RETURNS)))
                    ret, rest = rest[1], rest[2:]
                values = dict(w.split('=', 1) for w in rest if '=' in w)
                rest = [w for w in rest if '=' not in w]
                bad = [w for w in rest if w not in FLAGS] + [k + '=' for k in values if k not in VALUED_FLAGS]
                if bad:
                    raise SpecError('%s: unknown flag(s) %s' % (where, ' '.join(bad)))
                fn = Function(name, ret, set(rest), stem, where, values)
                api.blocks.append(fn)
                continue
            if fn is None:
                raise SpecError('%s: parameter before any function' % where)
            fields = tokens(line.strip(), where)
            fn.params.append(Param(where, fields))


def tokens(line, where):
    """Whitespace-separated words, except inside ( ) and [ ]."""
    return [w for w in split_outside(line, str.isspace, where) if w]


def format_text(text):
    """text with each block's parameter lines in aligned columns (name,
    direction, type, the rest); other lines as they are."""
    lines, out, i = text.split('\n'), [], 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].startswith('    ') and not lines[j].lstrip().startswith('#'):
            j += 1
        if j == i:
            out.append(lines[i])
            i += 1
            continue
        rows = [tokens(l.strip(), 'format') for l in lines[i:j]]
        w0 = max(len(r[0]) for r in rows)
        w2 = max(len(r[2]) for r in rows if len(r) > 2)
        for r in rows:
            out.append(('    %-*s %-5s %-*s %s' % (w0, r[0], r[1], w2, r[2], ' '.join(r[3:]))).rstrip())
        i = j
    return '\n'.join(out)


# ---- validation -------------------------------------------------------

COMM_FACTS = LEN_FUNCS - {'sum'}


def check_expr(fn, where, expr, what, errors):
    """An expression names parameters of fn of the right sort: an integer
    as a value, an array indexed or summed, a communicator inside a fact."""
    if not re.match(r'^[A-Za-z_0-9+\-*()\[\] ]+$', expr):
        errors.append('%s: %s: %s %r has characters an expression cannot have' % (where, fn.name, what, expr))
        return
    params = {p.name: p for p in fn.params}
    for m in re.finditer(r'[A-Za-z_][A-Za-z_0-9]*', expr):
        name, after = m.group(0), expr[m.end():].lstrip()[:1]
        inside = re.search(r'([A-Za-z_]\w*)\(\s*$', expr[:m.start()])
        if after == '(':
            if name not in LEN_FUNCS:
                errors.append('%s: %s: %s %r calls unknown %s() (known: %s)' % (
                    where, fn.name, what, expr, name, ', '.join(sorted(LEN_FUNCS))))
            continue
        if name.startswith('MPI_'):
            continue        # a constant: check_specials holds it to the header
        p = params.get(name)
        if p is None:
            errors.append('%s: %s: %s %r names %r, which is no parameter' % (where, fn.name, what, expr, name))
        elif inside and inside.group(1) in COMM_FACTS:
            if p.base != 'Comm':
                errors.append('%s: %s: %s %r: %s() of %r, which is no Comm' % (where, fn.name, what, expr, inside.group(1), name))
        elif p.dims:
            if after != '[' and not (inside and inside.group(1) == 'sum'):
                errors.append('%s: %s: %s %r uses array %r as a number' % (where, fn.name, what, expr, name))
        elif p.base_c not in ('int', 'Count', 'Aint'):
            errors.append('%s: %s: %s %r uses %r, which is no integer' % (where, fn.name, what, expr, name))


def validate(api):
    """Every error of meaning (the syntax was checked by load)."""
    errors = []
    seen = {}
    for fn in api.functions():
        if fn.name in seen:
            errors.append('%s: %s declared twice (also %s)' % (fn.where, fn.name, seen[fn.name]))
        seen[fn.name] = fn.where
    for fn in api.blocks:
        params = {}
        for p in fn.params:
            if p.name in params:
                errors.append('%s: %s: parameter %s twice' % (p.where, fn.name, p.name))
            params[p.name] = p
        has_c_only = any(p.base == '-' for p in fn.params)
        split = any(p.base != p.base_c for p in fn.params)
        if (split or has_c_only) and 'large' not in fn.flags:
            errors.append('%s: %s: a type with | but no large flag' % (fn.where, fn.name))
        for p in fn.params:
            for d in p.dims:
                check_expr(fn, p.where, d, 'the length of ' + p.name, errors)
            if p.base == 'char' and p.dir == 'in':
                errors.append('%s: %s: %s: an input string is "string", char[N] is an output buffer' % (p.where, fn.name, p.name))
            if p.buf:
                count, dtype, displs = p.buf
                cp, dp = params.get(count), params.get(dtype)
                if dtype == count and cp is not None and cp.base.startswith('T_'):
                    continue    # buf(handle): the tool handle knows both
                if displs is None:
                    check_expr(fn, p.where, count, 'the count of ' + p.name, errors)
                elif cp is None or not cp.dims or cp.base_c not in ('int', 'Count'):
                    errors.append('%s: %s: buffer %s with displacements names counts %r, which is no integer array' % (p.where, fn.name, p.name, count))
                if displs is not None and (displs not in params or not params[displs].dims):
                    errors.append('%s: %s: buffer %s names displacements %r, which is no array parameter' % (p.where, fn.name, p.name, displs))
                if not dtype.startswith('MPI_') and (dp is None or dp.base != 'Datatype'):
                    errors.append('%s: %s: buffer %s names datatype %r, which is no Datatype parameter' % (p.where, fn.name, p.name, dtype))
            if 'async' in p.attrs and not (p.buf or p.dims or p.dir != 'in'):
                errors.append('%s: %s: %s: only a buffer, an array or an output is async' % (p.where, fn.name, p.name))
            if p.kind == 'strlen' and p.base not in ('int',):
                errors.append('%s: %s: %s: a string length is an int' % (p.where, fn.name, p.name))
    return errors


# ---- prototypes of a C header -----------------------------------------

def c_header_prototypes(text):
    """name -> (return type, [parameter declarations]) of a C header's
    MPI_ functions (also COREMPI_LEGACY_FN(ret, Name, (params)) rows)."""
    protos = {}
    flat = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    for m in re.finditer(r'^\s*(int|double|MPI_\w+)\s+(MPI_\w+)\s*\(([^;{]*?)\)\s*;', flat, re.M):
        protos[m.group(2)] = (m.group(1), split_c_params(m.group(3)))
    for m in re.finditer(r'COREMPI_LEGACY_FN\((\w+),\s*(\w+),\s*\((.*?)\)\)', flat, re.S):
        protos['MPI_' + m.group(2)] = (m.group(1), split_c_params(m.group(3)))
    return protos


def split_c_params(s):
    s = ' '.join(s.split())
    if s in ('', 'void'):
        return []
    return [p.strip() for p in s.split(',')]


def c_function_typedefs(text):
    return set(re.findall(r'typedef\s+\w+\s*\(\s*\w*?(MPI_\w+)\s*\)', text))


def normalise(decl, fntypes):
    """(type, name) of a C parameter declaration with const and spacing
    dropped and a first [] read as a pointer (C's own adjustment)."""
    d = ' '.join(decl.replace('const', ' ').split())
    if d == '...':
        return ('...', '')
    m = re.match(r'(.*?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\])*)$', d)
    if not m:
        return (d, '')
    t, name, arr = m.group(1), m.group(2), m.group(3)
    t = t.replace(' ', '')
    if t.rstrip('*') in fntypes and not t.endswith('*'):
        t += '*'        # a parameter of function type is a pointer to it
    if arr:
        dims = re.findall(r'\[[^\]]*\]', arr)
        t += '*' + ''.join(x.replace(' ', '') for x in dims[1:])
    return (t, name)


def check_specials(api, header_text):
    """Errors where a special value or a constant of an expression is no
    name of the header."""
    names = set(re.findall(r'\bMPI_([A-Z][A-Z0-9_]*)\b', header_text))
    errors = []
    for fn in api.blocks:
        for p in fn.params:
            errors += ['%s: %s: %s: +%s: the header has no MPI_%s' % (p.where, fn.name, p.name, v, v)
                       for v in p.specials if v not in names]
            exprs = ' '.join(p.dims + [e for e in (p.buf or ()) if e])
            errors += ['%s: %s: %s: the header has no %s' % (p.where, fn.name, p.name, c)
                       for c in re.findall(r'\bMPI_\w+', exprs) if c[4:] not in names]
    return errors


def compare_prototypes(api, protos, fntypes):
    """Errors where a function's C prototype built from the spec differs
    from protos (type by type, then name by name)."""
    errors = []
    for fn in api.functions():
        if fn.name not in protos:
            errors.append('%s: %s: no prototype in the reference header' % (fn.where, fn.name))
            continue
        ret, ref = protos[fn.name]
        if RETURNS[fn.ret] != ret:
            errors.append('%s: %s returns %s in the spec, %s in the header' % (fn.where, fn.name, RETURNS[fn.ret], ret))
        mine = [normalise(c, fntypes) for c in fn.c_params()]
        theirs = [normalise(c, fntypes) for c in ref]
        if [t for t, _ in mine] != [t for t, _ in theirs]:
            errors.append('%s: %s: parameter types differ\n    spec:   %s\n    header: %s' % (
                fn.where, fn.name, ', '.join(fn.c_params()), ', '.join(ref)))
        elif [n for _, n in mine] != [n for _, n in theirs]:
            errors.append('%s: %s: parameter names differ: spec %s, header %s' % (
                fn.where, fn.name, [n for _, n in mine], [n for _, n in theirs]))
    return errors


def read_exports(path):
    """The MPI_ and PMPI_ functions of a shared library (read with nm -D)
    or of a file of names, one a line."""
    with open(path, 'rb') as fh:
        elf = fh.read(4) == b'\x7fELF'
    if elf:
        import subprocess
        out = subprocess.run(['nm', '-D', '--defined-only', path], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        names = [l.split()[2] for l in out.splitlines()
                 if len(l.split()) == 3 and l.split()[1] in ('T', 'W')]
    else:
        names = [l.split()[-1] for l in open(path) if l.strip()]
    names = {n for n in names if n.startswith('MPI_') or n.startswith('PMPI_')}
    if not any(n.startswith('MPI_') for n in names):
        raise SpecError('%s: no MPI_ function in it' % path)
    return names


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description='check corempi\'s API spec')
    ap.add_argument('--spec', default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument('--header', action='append', default=[],
                    help='C header whose prototypes the spec must match (repeatable)')
    ap.add_argument('--exports', help='the library (or a file of its MPI_ names, one a line)')
    ap.add_argument('--pending', action='append', default=[],
                    help='file whose lines start with a function declared but not exported yet (repeatable)')
    ap.add_argument('--format', action='store_true', help='align the columns of the .api files in place')
    ap.add_argument('--show', nargs='*', help='print the C prototypes of these functions')
    a = ap.parse_args(argv)
    try:
        api = load(a.spec)
        exported = read_exports(a.exports) if a.exports else None
    except SpecError as e:
        print('spec: %s' % e)
        return 1
    errors = validate(api)
    names = set(api.by_name())
    if a.header:
        protos, fntypes, texts = {}, set(), []
        for h in a.header:
            text = open(h).read()
            protos.update(c_header_prototypes(text))
            fntypes |= c_function_typedefs(text)
            texts.append(text)
        fntypes.add('MPI_Handler_function')
        errors += compare_prototypes(api, protos, fntypes)
        errors += check_specials(api, '\n'.join(texts))
    if exported is not None:
        # each function twice: MPI_ and its profiling name PMPI_
        names |= {'P' + n for n in names}
        for n in sorted(exported - names):
            errors.append('%s is exported but not in the spec' % n)
        pending = set()
        for path in a.pending:
            pending |= {l.split('#', 1)[0].split()[0] for l in open(path) if l.split('#', 1)[0].strip()}
        pending |= {'P' + n for n in pending}
        for n in sorted(names - exported - pending):
            errors.append('%s is in the spec but not exported' % n)
    if a.format:
        for f in sorted(os.listdir(a.spec)):
            if f.endswith('.api'):
                path = os.path.join(a.spec, f)
                text = open(path).read()
                if format_text(text) != text:
                    open(path, 'w').write(format_text(text))
                    print('spec: aligned %s' % path)
    for n in a.show or []:
        f = api.by_name().get(n)
        print(f.c_prototype() + ';' if f else '%s: not in the spec' % n)
    for e in errors:
        print('spec: ' + e)
    nblocks = len(api.blocks)
    print('spec: %d functions in %d blocks of %d files, %d error(s)' % (
        len(api.by_name()), nblocks, len(api.chapters), len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
