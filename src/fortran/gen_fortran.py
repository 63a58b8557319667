#!/usr/bin/env python3
"""Generates BDMPI's Fortran bindings from the C prototypes of include/mpi.h.

    gen_fortran.py MPI_H OUT_DIR

writes into OUT_DIR:

  bdmpi_fortran.c  the entry points of mpif.h and `use mpi` (gfortran's
                   names: mpi_send_, all arguments by reference, hidden
                   string lengths at the end), the common blocks that
                   carry MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ...,
                   and the shims through which `use mpi_f08` passes its
                   TYPE(*), DIMENSION(..) buffers (CFI descriptors).
  mpif.h           the constants and the functions' types, in a form that
                   is both fixed and free source form.
  mpi.f90          module mpi: the constants and an explicit interface for
                   every routine (choice buffers with NO_ARG_CHECK).
  mpi_f08.f90      module mpi_f08: handle types, MPI_Status, optional
                   ierror, TYPE(*), DIMENSION(..) buffers.
  mpi_sizeof.f90   MPI_SIZEOF for every intrinsic type and kind gfortran
                   has, used by both modules.

Every MPI_ function of mpi.h gets all three bindings unless it is listed in
SKIP (with the reason) or handled by hand in SPECIAL_C. A parameter is
classified by its C type and name (classify()); a new C function whose
parameters are all of known kinds needs no change here.
"""

import os
import re
import sys

# ------------------------------------------------------------------ model

# Functions with no Fortran binding, and why.
SKIP = {
    'MPI_Message_c2f': 'C only',
    'MPI_Message_f2c': 'C only',
    # Between C's and Fortran's statuses: C only (slave/api/status_convert.cpp).
    'MPI_Status_c2f': 'C only', 'MPI_Status_f2c': 'C only',
    'MPI_Status_c2f08': 'C only', 'MPI_Status_f082c': 'C only',
    'MPI_Status_f2f08': 'C only', 'MPI_Status_f082f': 'C only',
    # The predefined callbacks are Fortran procedures of their own
    # (F_CALLBACKS below).
    'MPI_Comm_null_copy_fn': 'callback', 'MPI_Comm_dup_fn': 'callback',
    'MPI_Comm_null_delete_fn': 'callback',
    'MPI_Type_null_copy_fn': 'callback', 'MPI_Type_dup_fn': 'callback',
    'MPI_Type_null_delete_fn': 'callback',
    'MPI_Null_copy_fn': 'callback', 'MPI_Dup_fn': 'callback',
    'MPI_Null_delete_fn': 'callback',
    'MPI_Win_null_copy_fn': 'callback', 'MPI_Win_dup_fn': 'callback',
    'MPI_Win_null_delete_fn': 'callback',
    'MPI_Session_c2f': 'C only', 'MPI_Session_f2c': 'C only',
}

# The large-count (_c) calls: MPI-4 gives Fortran them only in mpi_f08,
# through the generic interface of the call's name (MPI_Send with an
# INTEGER(KIND=MPI_COUNT_KIND) count is MPI_Send_c); mpif.h and module mpi
# do not have them.
def is_large_count(name):
    return name.endswith('_c')


# mpi_f08's specific procedure names where a call has a large-count twin:
# the generic name is the call's, the specifics these. `large_bases` holds
# the calls whose twin a generic interface can tell apart.
def f08_specific(name, large_bases):
    if is_large_count(name):
        return name[:-2] + '_c_f08' if name[:-2] in large_bases else name
    if name in large_bases:
        return name + '_f08'
    return name


def distinguishable(f, twin):
    """Whether a generic interface tells f's procedure from its large-count
    twin's: not when only MPI_Aint became MPI_Count (both 8-byte integers
    here, as MPI_File_get_type_extent_c, MPI_Type_get_extent_c); MPI-4
    names those twins with their _c in mpi_f08."""
    def shape(g):
        return [d.replace('MPI_COUNT_KIND', 'MPI_ADDRESS_KIND')
                for p in g.params for d in f90_dummy(g, p, True)]
    return shape(f) != shape(twin)


# The tool interface (MPI_T_*) has no Fortran binding in the standard: its
# functions, handles and constants are C only.
C_ONLY_PREFIX = 'MPI_T_'
# C's view of Fortran statuses (MPI_F_STATUS_SIZE, MPI_F_SOURCE, ...,
# MPI_F08_status): C only too.
C_STATUS_PREFIXES = ('MPI_F_', 'MPI_F08_')

# The Fortran programs' MPI_STATUS(ES)_IGNORE: libbdmpi defines these
# common blocks (C's MPI_F_STATUS(ES)_IGNORE, declared in mpi.h), not
# libbdmpi_f.
SENTINELS_IN_LIBBDMPI = {'mpi_fortran_status_ignore',
                         'mpi_fortran_statuses_ignore'}

# Written by hand below (C side); their Fortran interfaces are generated
# from the prototypes given here instead of mpi.h's.
SPECIAL_PROTOS = {
    'MPI_Init': 'int MPI_Init(void)',
    'MPI_Init_thread': 'int MPI_Init_thread(int required, int *provided)',
    'MPI_Pcontrol': 'int MPI_Pcontrol(int level)',
    'MPI_Info_create_env': 'int MPI_Info_create_env(MPI_Info *info)',
}

# MPI-1 functions whose Fortran addresses are default INTEGERs.
FINT_ADDRESS = {'MPI_Address', 'MPI_Type_extent', 'MPI_Type_lb',
                'MPI_Type_ub', 'MPI_Type_hvector', 'MPI_Type_hindexed',
                'MPI_Type_struct', 'MPI_Attr_get', 'MPI_Attr_put',
                'MPI_Keyval_create'}

# int parameters that are LOGICAL in Fortran.
LOGICAL_NAMES = {'flag', 'commute', 'reorder', 'high', 'weighted',
                 'periods', 'remain_dims'}

STRING_KINDS = ('str_in', 'str_out', 'str_arr', 'argv', 'argvs')

CHOICE_NAMES = {'buf', 'buffer', 'sendbuf', 'recvbuf', 'inbuf', 'outbuf',
                'inoutbuf', 'location', 'base', 'origin_addr', 'result_addr',
                'compare_addr'}

HANDLE_TYPES = {'MPI_Comm', 'MPI_Datatype', 'MPI_Op', 'MPI_Request',
                'MPI_Errhandler', 'MPI_Group', 'MPI_Info', 'MPI_Message',
                'MPI_Win', 'MPI_File', 'MPI_Session'}

FNPTR_TYPES = {'MPI_User_function', 'MPI_User_function_c',
               'MPI_Comm_errhandler_function',
               'MPI_File_errhandler_function', 'MPI_Handler_function',
               'MPI_Win_errhandler_function', 'MPI_Session_errhandler_function',
               # Called through trampolines (C_SPECIAL).
               'MPI_Comm_copy_attr_function', 'MPI_Comm_delete_attr_function',
               'MPI_Type_copy_attr_function', 'MPI_Type_delete_attr_function',
               'MPI_Win_copy_attr_function', 'MPI_Win_delete_attr_function',
               'MPI_Datarep_conversion_function',
               'MPI_Datarep_conversion_function_c', 'MPI_Datarep_extent_function',
               'MPI_Copy_function', 'MPI_Delete_function',
               'MPI_Grequest_query_function', 'MPI_Grequest_free_function',
               'MPI_Grequest_cancel_function'}

# The predefined attribute callbacks, Fortran procedures (C_SPECIAL).
F_CALLBACKS = ['MPI_COMM_NULL_COPY_FN', 'MPI_COMM_DUP_FN',
               'MPI_COMM_NULL_DELETE_FN', 'MPI_TYPE_NULL_COPY_FN',
               'MPI_TYPE_DUP_FN', 'MPI_TYPE_NULL_DELETE_FN',
               'MPI_NULL_COPY_FN', 'MPI_DUP_FN', 'MPI_NULL_DELETE_FN',
               'MPI_WIN_NULL_COPY_FN', 'MPI_WIN_DUP_FN',
               'MPI_WIN_NULL_DELETE_FN', 'MPI_CONVERSION_FN_NULL']
# mpi_f08's only: MPI_REGISTER_DATAREP_C's (large-count) null conversion.
F08_CALLBACKS = ['MPI_CONVERSION_FN_NULL_C']

# Routines whose buffers stay in use after the call returns: no compiler
# copy of a non-contiguous section may be made for them (mpi_f08).
def is_nonblocking(name):
    base = name[4:]
    return (re.match(r'I[a-z]', base) is not None and
            not base.startswith('Info') and not base.startswith('Intercomm')
            ) or base.endswith('_init') or base.startswith('File_i') or \
        base.endswith('_begin') or base == 'Buffer_attach' or \
        base in ('Send_init', 'Recv_init', 'Bsend_init', 'Rsend_init',
                 'Ssend_init', 'Imrecv', 'Rput', 'Rget', 'Raccumulate',
                 'Rget_accumulate')


class Param:
    def __init__(self, fn, ctype, name, array):
        self.ctype, self.name, self.array = ctype, name, array
        self.kind = classify(fn, ctype, name, array)


def classify(fn, ctype, name, array):
    base = ctype.replace('const ', '').strip()
    fint = fn in FINT_ADDRESS
    if base in ('void *',) and name in CHOICE_NAMES:
        return 'choice'
    if name == 'buffer_addr':
        return 'detach'
    if name == 'baseptr':
        return 'baseptr'
    if name == 'extra_state' and base == 'void *':
        return 'faint_in' if fint else 'aint_in'
    if name == 'attribute_val':
        if fn.endswith('get_attr') or fn == 'MPI_Attr_get':
            return 'attr_out_fint' if fint else 'attr_out'
        return 'attr_in_fint' if fint else 'attr_in'
    if base == 'int' and not array:
        return 'logical_in' if name in LOGICAL_NAMES else 'int_in'
    if base == 'int *' and name == 'index':
        return 'index_out'
    if base == 'int *':
        return 'logical_out' if name in LOGICAL_NAMES else 'int_out'
    if base == 'int' and array:
        if name == 'array_of_indices':
            return 'indices_out'
        if name in ('sourceweights', 'destweights', 'weights'):
            return 'weights'
        if array == '[][3]':
            return 'int_arr3'
        return 'logical_arr' if name in LOGICAL_NAMES else 'int_arr'
    if base in HANDLE_TYPES:
        return 'handle_arr' if array else 'handle_in'
    if base.rstrip(' *') in HANDLE_TYPES and base.endswith('*'):
        return 'handle_out'
    if base in ('MPI_Aint', 'MPI_Offset', 'MPI_Count'):
        k = {'MPI_Aint': 'aint', 'MPI_Offset': 'offset',
             'MPI_Count': 'count'}[base]
        if fint and k == 'aint':
            return 'faint_arr' if array else 'faint_in'
        return k + ('_arr' if array else '_in')
    if base in ('MPI_Aint *', 'MPI_Offset *', 'MPI_Count *'):
        k = {'MPI_Aint *': 'aint', 'MPI_Offset *': 'offset',
             'MPI_Count *': 'count'}[base]
        if fint and k == 'aint':
            return 'faint_out'
        return k + '_out'
    if base == 'MPI_Status *':
        if array:
            return 'statuses'
        if 'const' in ctype:
            return 'status_in'
        if fn.startswith('MPI_Status_set'):
            return 'status_inout'
        return 'status_out'
    if base == 'MPI_Status' and array:
        return 'statuses'
    if base == 'char *' and not array:
        return 'str_in' if 'const' in ctype else 'str_out'
    # MPI_Comm_spawn(_multiple): CHARACTER arrays, each list of arguments
    # ended by a blank one (C_SPECIAL converts them).
    if base == 'char *' and array == '[]':
        return 'argv' if name == 'argv' else 'str_arr'
    if base == 'char **' and array == '[]':
        return 'argvs'
    if base == 'char' and array:
        return 'str_in'
    if base.rstrip(' *') in FNPTR_TYPES:
        return 'fnptr'
    return None


class Func:
    def __init__(self, ret, name, args):
        self.ret, self.name = ret, name
        self.params = []
        if args.strip() not in ('', 'void'):
            for a in split_args(args):
                m = re.match(r'(.*?)(\w+)\s*((?:\[[^\]]*\])*)$', a)
                if not m:
                    raise ValueError('%s: cannot parse parameter %r' %
                                     (name, a))
                ctype = ' '.join(m.group(1).split())
                # FUNCTION is the name of a statement in Fortran; the
                # standard's keyword argument is this.
                pname = {'function': 'errhandler_fn'}.get(m.group(2),
                                                          m.group(2))
                self.params.append(Param(name, ctype, pname,
                                         m.group(3).replace(' ', '')))
        self.unknown = [p for p in self.params if p.kind is None]

    @property
    def lname(self):
        return self.name.lower()

    @property
    def strings(self):
        """The CHARACTER arguments, whose lengths gfortran passes."""
        return [p for p in self.params if p.kind in STRING_KINDS]


def split_args(args):
    return [' '.join(a.split()) for a in args.split(',')]


def parse_header(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    funcs = {}
    for ret, name, args in re.findall(
            r'^(int|double|MPI_Aint)\s+(MPI_\w+)\s*\(([^;]*?)\)\s*;', text,
            flags=re.M | re.S):
        if name in SKIP or name.startswith(C_ONLY_PREFIX):
            continue
        if name in SPECIAL_PROTOS:
            m = re.match(r'(\w+)\s+(\w+)\((.*)\)', SPECIAL_PROTOS[name])
            ret, name, args = m.groups()
        funcs[name] = Func(ret, name, args)
    return funcs


def parse_constants(text):
    """(name, fortran kind, value) of mpi.h's integer constants and handles.
    kind is 'integer' or the handle type."""
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    out = []
    seen = set()
    for name, val in re.findall(r'^#define\s+(MPI_\w+)\s+(.+?)\s*$', text,
                                flags=re.M):
        m = re.match(r'^\(\((MPI_\w+)\)\s*(0x[0-9a-fA-F]+|-?\d+)\)$', val)
        if m:
            out.append((name, m.group(1), int(m.group(2), 0)))
            seen.add(name)
            continue
        m = re.match(r'^\(?(-?(?:0x[0-9a-fA-F]+|\d+))\)?$', val)
        if m:
            out.append((name, 'integer', int(m.group(1), 0)))
            seen.add(name)
            continue
        if re.match(r'^MPI_\w+$', val) and val in seen:
            prev = [c for c in out if c[0] == val][0]
            out.append((name, prev[1], prev[2]))
            seen.add(name)
    for body in re.findall(r'enum\s*\{([^}]*)\}', text):
        for name, v in re.findall(r'(MPI_\w+)\s*=\s*(-?\d+)', body):
            out.append((name, 'integer', int(v)))
    # Version macros and the like that are not MPI constants in Fortran.
    drop = {'MPI_Comm_c2f'}
    return [c for c in out
            if c[0] not in drop and not c[0].startswith(C_ONLY_PREFIX)
            and not c[0].startswith(C_STATUS_PREFIXES)]


# ------------------------------------------------------------ C wrappers

SENTINELS = [
    # (common block, C type and size, Fortran declaration for mpif.h)
    ('mpi_fortran_bottom', 'MPI_Fint', 1, 'integer MPI_BOTTOM'),
    ('mpi_fortran_in_place', 'MPI_Fint', 1, 'integer MPI_IN_PLACE'),
    ('mpi_fortran_buffer_automatic', 'MPI_Fint', 1,
     'integer MPI_BUFFER_AUTOMATIC'),
    ('mpi_fortran_status_ignore', 'MPI_Fint', 6,
     'integer MPI_STATUS_IGNORE(MPI_STATUS_SIZE)'),
    ('mpi_fortran_statuses_ignore', 'MPI_Fint', 6,
     'integer MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)'),
    ('mpi_fortran_errcodes_ignore', 'MPI_Fint', 1,
     'integer MPI_ERRCODES_IGNORE(1)'),
    ('mpi_fortran_unweighted', 'MPI_Fint', 1, 'integer MPI_UNWEIGHTED(1)'),
    ('mpi_fortran_weights_empty', 'MPI_Fint', 1,
     'integer MPI_WEIGHTS_EMPTY(1)'),
    ('mpi_fortran_argv_null', 'char', 1, 'character MPI_ARGV_NULL(1)'),
    ('mpi_fortran_argvs_null', 'char', 1, 'character MPI_ARGVS_NULL(1,1)'),
]

C_PROLOGUE = r'''/* Generated by src/fortran/gen_fortran.py from include/mpi.h: do not edit.
 *
 * The Fortran entry points of libbdmpi_f. gfortran passes every argument
 * by reference and a CHARACTER argument's length as a hidden size_t after
 * the others; LOGICAL(4) .TRUE. is 1, as C's int flags. Handles are the C
 * handles (integers), statuses are copied in and out because a Fortran
 * INTEGER array is only 4-byte aligned. */
#include <ISO_Fortran_binding.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

#define BDMPI_F_STATUS_SIZE 6
_Static_assert(sizeof(MPI_Status) == BDMPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_STATUS_SIZE no longer matches the C MPI_Status");
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is C's int");

/* The common blocks of MPI_BOTTOM, MPI_IN_PLACE, ...: a program's
 * references to them resolve to these, so their addresses tell the
 * sentinels from data. */
'''

C_HELPERS = r'''
static void *f_buf(const void *p) {
  if (p == (const void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
  if (p == (const void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (p == (const void *)&mpi_fortran_buffer_automatic_) return MPI_BUFFER_AUTOMATIC;
  return (void *)(uintptr_t)p;
}

/* A detached buffer's address for mpi_f08's TYPE(C_PTR): an automatic
 * buffer comes back as the address of MPI_BUFFER_AUTOMATIC's common
 * block, which the program can compare with that variable's address. */
static void f_detached_out(void **addr) {
  if (*addr == MPI_BUFFER_AUTOMATIC) *addr = (void *)&mpi_fortran_buffer_automatic_;
}

static int *f_weights(MPI_Fint *p) {
  if (p == mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
  if (p == mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return p;
}

static int f_status_ignored(const MPI_Fint *s) {
  return s == mpi_fortran_status_ignore_ || s == mpi_fortran_statuses_ignore_;
}

/* A Fortran string without its trailing blanks, NUL-terminated. */
static char *f_str_in(const char *s, size_t len) {
  while (len > 0 && s[len - 1] == ' ') --len;
  char *c = malloc(len + 1);
  if (c == NULL) return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

/* Room for what C writes into a Fortran string: the longest an MPI call
 * writes (MPI_MAX_INFO_VAL), or the Fortran length if more. */
static char *f_str_buf(size_t len) {
  size_t n = len > MPI_MAX_INFO_VAL ? len : MPI_MAX_INFO_VAL;
  return calloc(n + 2, 1);
}

/* Copies C's NUL-terminated answer into the Fortran string, blank-padded. */
static void f_str_out(char *f, size_t len, char *c) {
  size_t n = strlen(c);
  if (n > len) n = len;
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
  free(c);
}

/* Statuses: C's MPI_Status has the layout of MPI_STATUS_SIZE integers. */
static void f_status_out(MPI_Fint *f, const MPI_Status *c) {
  if (!f_status_ignored(f)) memcpy(f, c, sizeof *c);
}

static MPI_Status *f_statuses_alloc(const MPI_Fint *f, MPI_Fint n) {
  if (f_status_ignored(f) || n <= 0) return MPI_STATUSES_IGNORE;
  return calloc((size_t)n, sizeof(MPI_Status));
}

static void f_statuses_out(MPI_Fint *f, MPI_Status *c, MPI_Fint n) {
  if (c == MPI_STATUSES_IGNORE) return;
  memcpy(f, c, (size_t)n * sizeof *c);
  free(c);
}

/* A choice buffer given by mpi_f08 as a descriptor. A non-contiguous one
 * only reaches here in a non-blocking call (the blocking ones declare
 * theirs CONTIGUOUS, so the compiler passes a contiguous copy); the data
 * must then stay where it is, which a copy would not. */
static void *f08_buf(const CFI_cdesc_t *d, MPI_Fint *ierr) {
  if (d->base_addr != NULL && d->rank > 0 && !CFI_is_contiguous(d)) {
    fprintf(stderr,
            "BDMPI: a non-blocking MPI call from mpi_f08 got a "
            "non-contiguous array section; pass a contiguous array (or a "
            "derived datatype describing the section) instead\n");
    *ierr = MPI_ERR_BUFFER;
    return NULL;
  }
  return d->base_addr;
}
'''


def c_param_decl(p):
    k = p.kind
    n = p.name
    if k == 'choice':
        return 'void *%s' % n
    if k in ('detach',):
        return 'void *%s' % n
    if k == 'baseptr':
        return 'void *%s' % n
    if k in ('attr_in', 'attr_out'):
        return 'MPI_Aint *%s' % n
    if k in ('aint_in', 'aint_out', 'aint_arr'):
        return 'MPI_Aint *%s' % n
    if k in ('offset_in', 'offset_out', 'offset_arr'):
        return 'MPI_Offset *%s' % n
    if k in ('count_in', 'count_out', 'count_arr'):
        return 'MPI_Count *%s' % n
    if k in ('str_in', 'str_out'):
        return 'char *%s' % n
    if k == 'fnptr':
        return '%s %s' % (p.ctype.replace('const ', ''), n)
    return 'MPI_Fint *%s' % n


def c_wrapper(f):
    """The mpif.h / use mpi entry point of f."""
    lines = []
    decls = [c_param_decl(p) for p in f.params]
    if f.ret == 'int':
        decls.append('MPI_Fint *ierr')
    decls += ['size_t %s_len' % p.name for p in f.strings]
    ret = {'int': 'void', 'double': 'double', 'MPI_Aint': 'MPI_Aint'}[f.ret]
    sig = '%s %s_(%s)' % (ret, f.lname, ', '.join(decls) or 'void')
    pre, args, post = [], [], []
    count_param = None
    for p in f.params:
        if p.name in ('count', 'incount') and p.kind == 'int_in':
            count_param = p.name
    for p in f.params:
        k, n = p.kind, p.name
        if k == 'choice':
            args.append('f_buf(%s)' % n)
        elif k in ('int_in', 'logical_in'):
            args.append('*%s' % n)
        elif k == 'logical_arr':
            args.append(n)
        elif k in ('int_out', 'int_arr', 'handle_out', 'handle_arr',
                   'logical_out'):
            args.append(n)
        elif k == 'int_arr3':
            args.append('(int(*)[3])%s' % n)
        elif k == 'index_out':
            args.append(n)
            post.append('if (rc == MPI_SUCCESS && *%s >= 0) ++*%s;' % (n, n))
        elif k == 'indices_out':
            args.append(n)
            post.append('if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)'
                        ' for (int i = 0; i < *outcount; ++i) ++%s[i];' % n)
        elif k == 'weights':
            args.append('f_weights(%s)' % n)
        elif k == 'handle_in':
            args.append('*%s' % n)
        elif k in ('aint_in', 'offset_in', 'count_in'):
            args.append('*%s' % n)
        elif k in ('aint_out', 'offset_out', 'count_out', 'aint_arr',
                   'offset_arr', 'count_arr'):
            args.append(n)
        elif k == 'faint_in':
            args.append('(MPI_Aint)*%s' % n)
        elif k == 'faint_out':
            pre.append('MPI_Aint %s_c = 0;' % n)
            args.append('&%s_c' % n)
            post.append('*%s = (MPI_Fint)%s_c;' % (n, n))
        elif k == 'faint_arr':
            pre.append('MPI_Aint *%s_c = malloc(sizeof(MPI_Aint) * '
                       '(size_t)(*%s > 0 ? *%s : 1));' % (n, count_param,
                                                         count_param))
            pre.append('for (int i = 0; %s_c != NULL && i < *%s; ++i) '
                       '%s_c[i] = %s[i];' % (n, count_param, n, n))
            args.append('%s_c' % n)
            post.append('free(%s_c);' % n)
        elif k == 'status_out':
            pre.append('MPI_Status %s_c;' % n)
            args.append('f_status_ignored(%s) ? MPI_STATUS_IGNORE : &%s_c'
                        % (n, n))
            post.append('if (rc == MPI_SUCCESS) f_status_out(%s, &%s_c);'
                        % (n, n))
        elif k in ('status_in', 'status_inout'):
            pre.append('MPI_Status %s_c;' % n)
            pre.append('memcpy(&%s_c, %s, sizeof %s_c);' % (n, n, n))
            args.append('&%s_c' % n)
            if k == 'status_inout':
                post.append('if (rc == MPI_SUCCESS) memcpy(%s, &%s_c, '
                            'sizeof %s_c);' % (n, n, n))
        elif k == 'statuses':
            cnt = '*count' if any(q.name == 'count' for q in f.params) \
                else '*incount'
            pre.append('MPI_Status *%s_c = f_statuses_alloc(%s, %s);'
                       % (n, n, cnt))
            args.append('%s_c' % n)
            n_out = cnt if cnt == '*count' else '(*outcount == MPI_UNDEFINED'\
                ' ? 0 : *outcount)'
            post.append('f_statuses_out(%s, %s_c, %s);' % (n, n, n_out))
        elif k == 'str_in':
            pre.append('char *%s_c = f_str_in(%s, %s_len);' % (n, n, n))
            args.append('%s_c' % n)
            post.append('free(%s_c);' % n)
        elif k == 'str_out':
            pre.append('char *%s_c = f_str_buf(%s_len);' % (n, n))
            args.append('%s_c' % n)
            post.append('if (%s_c != NULL) f_str_out(%s, %s_len, %s_c);'
                        % (n, n, n, n))
        elif k == 'fnptr':
            args.append(n)
        elif k == 'detach':
            pre.append('(void)%s;' % n)
            pre.append('void *%s_c = NULL;' % n)
            args.append('&%s_c' % n)
        elif k == 'baseptr':
            args.append(n)
        elif k == 'attr_in':
            args.append('(void *)*%s' % n)
        elif k == 'attr_in_fint':
            args.append('(void *)(MPI_Aint)*%s' % n)
        elif k in ('attr_out', 'attr_out_fint'):
            pre.append('void *%s_c = NULL;' % n)
            args.append('&%s_c' % n)
            key = [q.name for q in f.params if 'keyval' in q.name][0]
            cast = 'MPI_Aint' if k == 'attr_out' else 'MPI_Fint'
            post.append(
                'if (rc == MPI_SUCCESS && *flag) *%s = (%s)(f_predefined_key'
                '(*%s) ? *(int *)%s_c : (MPI_Aint)%s_c);'
                % (n, cast, key, n, n))
        else:
            raise ValueError('%s: no C conversion for %s' % (f.name, k))
    if k_has(f, 'attr_out_fint'):
        sig = sig.replace('MPI_Aint *attribute_val', 'MPI_Fint *attribute_val')
    if k_has(f, 'attr_in_fint'):
        sig = sig.replace('MPI_Aint *attribute_val', 'MPI_Fint *attribute_val')
    call = '%s(%s)' % (f.name, ', '.join(args))
    lines.append(sig + ' {')
    if f.ret != 'int':
        lines.append('  return %s;' % call)
        lines.append('}')
        return '\n'.join(lines)
    for s in pre:
        lines.append('  ' + s)
    lines.append('  int rc = %s;' % call)
    for s in post:
        lines.append('  ' + s)
    lines.append('  *ierr = rc;')
    lines.append('}')
    return '\n'.join(lines)


def k_has(f, kind):
    return any(p.kind == kind for p in f.params)


def c_f08_shim(f):
    """For a routine with choice buffers: the entry point of mpi_f08, which
    takes them as descriptors and calls the mpif.h one."""
    decls, args, pre = [], [], []
    for p in f.params:
        if p.kind == 'choice':
            decls.append('CFI_cdesc_t *%s' % p.name)
            pre.append('void *%s_p = f08_buf(%s, ierr);' % (p.name, p.name))
            pre.append('if (%s_p == NULL && %s->base_addr != NULL) return;'
                       % (p.name, p.name))
            args.append('%s_p' % p.name)
        else:
            decls.append(c_param_decl(p))
            args.append(p.name)
    decls.append('MPI_Fint *ierr')
    args.append('ierr')
    decls += ['size_t %s_len' % p.name for p in f.strings]
    args += ['%s_len' % p.name for p in f.strings]
    out = ['void bdmpi_f08_%s(%s) {' % (f.lname[4:], ', '.join(decls))]
    out += ['  ' + s for s in pre]
    out.append('  %s_(%s);' % (f.lname, ', '.join(args)))
    out.append('}')
    return '\n'.join(out)


def c_f08_detach_shim(f):
    """For a detach routine (MPI_Comm_detach_buffer, ...): the entry point
    of mpi_f08, whose TYPE(C_PTR) gets the buffer's address (mpif.h's
    BUFFER_ADDR does not, as MPI_Buffer_detach's by hand above)."""
    decls, args = [], []
    for p in f.params:
        decls.append('void **%s' % p.name if p.kind == 'detach' else c_param_decl(p))
        if p.kind == 'handle_in':
            args.append('*%s' % p.name)
        elif p.kind in ('detach', 'int_out', 'count_out'):
            args.append(p.name)
        else:
            raise ValueError('%s: no detach shim for a %s parameter' % (f.name, p.kind))
    decls.append('MPI_Fint *ierr')
    addr = [p.name for p in f.params if p.kind == 'detach'][0]
    return '\n'.join(['void bdmpi_f08_%s(%s) {' % (f.lname[4:], ', '.join(decls)),
                      '  *ierr = %s(%s);' % (f.name, ', '.join(args)),
                      '  if (*ierr == MPI_SUCCESS) f_detached_out(%s);' % addr,
                      '}'])


C_SPECIAL = r'''
static int f_predefined_key(MPI_Fint key) {
  return key == MPI_TAG_UB || key == MPI_HOST || key == MPI_IO ||
         key == MPI_WTIME_IS_GLOBAL || key == MPI_UNIVERSE_SIZE ||
         key == MPI_APPNUM || key == MPI_LASTUSEDCODE;
}

/* Fortran's MPI_INIT has no argc/argv: BDMPI reads neither. */
void mpi_init_(MPI_Fint *ierr) { *ierr = MPI_Init(NULL, NULL); }

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
                      MPI_Fint *ierr) {
  *ierr = MPI_Init_thread(NULL, NULL, *required, provided);
}

void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr) {
  *ierr = MPI_Pcontrol(*level);
}

void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr) {
  *ierr = MPI_Info_create_env(0, NULL, info);
}

/* mpif.h's BUFFER_ADDR is the program's buffer, not to be written; the
 * mpi_f08 one is a TYPE(C_PTR) that gets the address. */
void mpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr) {
  void *addr = NULL;
  (void)buffer_addr;
  *ierr = MPI_Buffer_detach(&addr, size);
}

void bdmpi_f08_buffer_detach(void **buffer_addr, MPI_Fint *size,
                             MPI_Fint *ierr) {
  *ierr = MPI_Buffer_detach(buffer_addr, size);
  if (*ierr == MPI_SUCCESS) f_detached_out(buffer_addr);
}

void bdmpi_f08_buffer_detach_c(void **buffer_addr, MPI_Count *size,
                               MPI_Fint *ierr) {
  *ierr = MPI_Buffer_detach_c(buffer_addr, size);
  if (*ierr == MPI_SUCCESS) f_detached_out(buffer_addr);
}

/* Fortran's attribute callbacks take every argument by reference and
 * return through ierror; the keyval's C extra state is one of these, through
 * which a C trampoline calls them. An mpi_f08 handle is a one-integer
 * BIND(C) type, so the same trampolines serve all three interfaces. The
 * record lives as long as the program (on a list, so that it stays
 * reachable): attributes may outlive the freed keyval, and their copies and
 * deletes still need it. */
typedef void f_copy_fn(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *,
                       MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void f_delete_fn(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *,
                         MPI_Fint *);
/* MPI_KEYVAL_CREATE's: all default INTEGERs. */
typedef void f_copy1_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                        MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void f_delete1_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                          MPI_Fint *);

struct f_keyval {
  void (*copy)(void);
  void (*del)(void);
  MPI_Aint extra;
  struct f_keyval *next;
};
/* Pushed without a lock: keyvals may be created from several threads. */
static _Atomic(struct f_keyval *) f_keyvals;

static struct f_keyval *f_keyval_new(void (*copy)(void), void (*del)(void),
                                     MPI_Aint extra) {
  struct f_keyval *k = malloc(sizeof *k);
  if (k == NULL) return NULL;
  k->copy = copy;
  k->del = del;
  k->extra = extra;
  k->next = atomic_load(&f_keyvals);
  while (!atomic_compare_exchange_weak(&f_keyvals, &k->next, k)) {
  }
  return k;
}

static int f_copy_tramp(MPI_Fint handle, int keyval, void *extra, void *in,
                        void *out, int *flag) {
  struct f_keyval *k = extra;
  MPI_Fint h = handle, key = keyval, fflag = 0, ierr = MPI_SUCCESS;
  MPI_Aint vin = (MPI_Aint)in, vout = 0;
  ((f_copy_fn *)(void (*)(void))k->copy)(&h, &key, &k->extra, &vin, &vout,
                                         &fflag, &ierr);
  *flag = fflag != 0;
  if (fflag) *(void **)out = (void *)vout;
  return ierr;
}

static int f_delete_tramp(MPI_Fint handle, int keyval, void *value,
                          void *extra) {
  struct f_keyval *k = extra;
  MPI_Fint h = handle, key = keyval, ierr = MPI_SUCCESS;
  MPI_Aint v = (MPI_Aint)value;
  ((f_delete_fn *)(void (*)(void))k->del)(&h, &key, &v, &k->extra, &ierr);
  return ierr;
}

static int f_comm_copy(MPI_Comm c, int key, void *extra, void *in, void *out,
                       int *flag) {
  return f_copy_tramp((MPI_Fint)c, key, extra, in, out, flag);
}
static int f_comm_delete(MPI_Comm c, int key, void *value, void *extra) {
  return f_delete_tramp((MPI_Fint)c, key, value, extra);
}
static int f_type_copy(MPI_Datatype t, int key, void *extra, void *in,
                       void *out, int *flag) {
  return f_copy_tramp((MPI_Fint)t, key, extra, in, out, flag);
}
static int f_type_delete(MPI_Datatype t, int key, void *value, void *extra) {
  return f_delete_tramp((MPI_Fint)t, key, value, extra);
}

static int f_win_copy(MPI_Win w, int key, void *extra, void *in, void *out,
                      int *flag) {
  return f_copy_tramp((MPI_Fint)w, key, extra, in, out, flag);
}
static int f_win_delete(MPI_Win w, int key, void *value, void *extra) {
  return f_delete_tramp((MPI_Fint)w, key, value, extra);
}

static int f_copy1(MPI_Comm c, int keyval, void *extra, void *in, void *out,
                   int *flag) {
  struct f_keyval *k = extra;
  MPI_Fint h = (MPI_Fint)c, key = keyval, fflag = 0, ierr = MPI_SUCCESS;
  MPI_Fint fextra = (MPI_Fint)k->extra, vin = (MPI_Fint)(MPI_Aint)in, vout = 0;
  ((f_copy1_fn *)(void (*)(void))k->copy)(&h, &key, &fextra, &vin, &vout,
                                          &fflag, &ierr);
  *flag = fflag != 0;
  if (fflag) *(void **)out = (void *)(MPI_Aint)vout;
  return ierr;
}
static int f_delete1(MPI_Comm c, int keyval, void *value, void *extra) {
  struct f_keyval *k = extra;
  MPI_Fint h = (MPI_Fint)c, key = keyval, ierr = MPI_SUCCESS;
  MPI_Fint fextra = (MPI_Fint)k->extra, v = (MPI_Fint)(MPI_Aint)value;
  ((f_delete1_fn *)(void (*)(void))k->del)(&h, &key, &v, &fextra, &ierr);
  return ierr;
}

void mpi_comm_create_keyval_(void (*copy_fn)(void), void (*delete_fn)(void),
                             MPI_Fint *comm_keyval, MPI_Aint *extra_state,
                             MPI_Fint *ierr) {
  struct f_keyval *k = f_keyval_new(copy_fn, delete_fn, *extra_state);
  if (k == NULL) { *ierr = MPI_ERR_NO_MEM; return; }
  *ierr = MPI_Comm_create_keyval(f_comm_copy, f_comm_delete, comm_keyval, k);
}

void mpi_type_create_keyval_(void (*type_copy_attr_fn)(void),
                             void (*type_delete_attr_fn)(void),
                             MPI_Fint *type_keyval, MPI_Aint *extra_state,
                             MPI_Fint *ierr) {
  struct f_keyval *k =
      f_keyval_new(type_copy_attr_fn, type_delete_attr_fn, *extra_state);
  if (k == NULL) { *ierr = MPI_ERR_NO_MEM; return; }
  *ierr = MPI_Type_create_keyval(f_type_copy, f_type_delete, type_keyval, k);
}

void mpi_win_create_keyval_(void (*win_copy_attr_fn)(void),
                            void (*win_delete_attr_fn)(void),
                            MPI_Fint *win_keyval, MPI_Aint *extra_state,
                            MPI_Fint *ierr) {
  struct f_keyval *k =
      f_keyval_new(win_copy_attr_fn, win_delete_attr_fn, *extra_state);
  if (k == NULL) { *ierr = MPI_ERR_NO_MEM; return; }
  *ierr = MPI_Win_create_keyval(f_win_copy, f_win_delete, win_keyval, k);
}

void mpi_keyval_create_(void (*copy_fn)(void), void (*delete_fn)(void),
                        MPI_Fint *keyval, MPI_Fint *extra_state,
                        MPI_Fint *ierr) {
  struct f_keyval *k = f_keyval_new(copy_fn, delete_fn, *extra_state);
  if (k == NULL) { *ierr = MPI_ERR_NO_MEM; return; }
  *ierr = MPI_Keyval_create(f_copy1, f_delete1, keyval, k);
}

/* The predefined callbacks, as Fortran procedures. */
#define F_NULL_COPY(name, T)                                              \
  void name(MPI_Fint *h, MPI_Fint *key, T *extra, T *in, T *out,           \
            MPI_Fint *flag, MPI_Fint *ierr) {                            \
    (void)h, (void)key, (void)extra, (void)in, (void)out;                \
    *flag = 0;                                                           \
    *ierr = MPI_SUCCESS;                                                 \
  }
#define F_DUP(name, T)                                                    \
  void name(MPI_Fint *h, MPI_Fint *key, T *extra, T *in, T *out,           \
            MPI_Fint *flag, MPI_Fint *ierr) {                            \
    (void)h, (void)key, (void)extra;                                     \
    *out = *in;                                                          \
    *flag = 1;                                                           \
    *ierr = MPI_SUCCESS;                                                 \
  }
#define F_NULL_DELETE(name, T)                                            \
  void name(MPI_Fint *h, MPI_Fint *key, T *value, T *extra,              \
            MPI_Fint *ierr) {                                            \
    (void)h, (void)key, (void)value, (void)extra;                        \
    *ierr = MPI_SUCCESS;                                                 \
  }
F_NULL_COPY(mpi_comm_null_copy_fn_, MPI_Aint)
F_DUP(mpi_comm_dup_fn_, MPI_Aint)
F_NULL_DELETE(mpi_comm_null_delete_fn_, MPI_Aint)
F_NULL_COPY(mpi_type_null_copy_fn_, MPI_Aint)
F_DUP(mpi_type_dup_fn_, MPI_Aint)
F_NULL_DELETE(mpi_type_null_delete_fn_, MPI_Aint)
F_NULL_COPY(mpi_win_null_copy_fn_, MPI_Aint)
F_DUP(mpi_win_dup_fn_, MPI_Aint)
F_NULL_DELETE(mpi_win_null_delete_fn_, MPI_Aint)
/* Defined through a macro, as the callbacks above: no pmpi_ twin. */
#define F_CONVERSION_NULL(name, C)                                         \
  void name(void *userbuf, MPI_Fint *datatype, C *count,                  \
            void *filebuf, MPI_Offset *position, MPI_Aint *extra,         \
            MPI_Fint *ierr) {                                            \
    (void)userbuf, (void)datatype, (void)count, (void)filebuf;           \
    (void)position, (void)extra;                                         \
    *ierr = MPI_SUCCESS;                                                 \
  }
F_NULL_COPY(mpi_null_copy_fn_, MPI_Fint)
F_DUP(mpi_dup_fn_, MPI_Fint)
F_NULL_DELETE(mpi_null_delete_fn_, MPI_Fint)

/* MPI_COMM_SPAWN's ARGV: CHARACTER elements of `len` characters up to the
 * first blank one, as C strings without their trailing blanks, in a
 * NULL-terminated array; `stride` elements apart (the count of commands
 * for MPI_COMM_SPAWN_MULTIPLE's ARRAY_OF_ARGV(COUNT, *), whose column j
 * holds argument j of every command). NULL when out of memory: *ok then 0. */
static char **f_argv_in(const char *f, size_t len, size_t stride, int *ok) {
  size_t n = 0;
  for (;;) {
    const char *e = f + n * stride * len;
    size_t k = len;
    while (k > 0 && e[k - 1] == ' ') --k;
    if (k == 0) break;
    ++n;
  }
  char **argv = calloc(n + 1, sizeof *argv);
  if (argv == NULL) { *ok = 0; return NULL; }
  for (size_t i = 0; i < n; ++i) {
    argv[i] = f_str_in(f + i * stride * len, len);
    if (argv[i] == NULL) *ok = 0;
  }
  return argv;
}

static void f_argv_free(char **argv) {
  if (argv == NULL) return;
  for (char **a = argv; *a != NULL; ++a) free(*a);
  free(argv);
}

static int *f_errcodes(MPI_Fint *f) {
  return f == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : f;
}

void mpi_comm_spawn_(const char *command, const char *argv,
                     MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *intercomm,
                     MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                     size_t command_len, size_t argv_len) {
  int ok = 1;
  char *command_c = f_str_in(command, command_len);
  char **argv_c = argv == mpi_fortran_argv_null_
                      ? MPI_ARGV_NULL
                      : f_argv_in(argv, argv_len, 1, &ok);
  if (command_c == NULL || !ok) {
    *ierr = MPI_ERR_NO_MEM;
  } else {
    *ierr = MPI_Comm_spawn(command_c, argv_c, *maxprocs, *info, *root, *comm,
                           intercomm, f_errcodes(array_of_errcodes));
  }
  free(command_c);
  f_argv_free(argv_c);
}

void mpi_comm_spawn_multiple_(MPI_Fint *count, const char *array_of_commands,
                              const char *array_of_argv,
                              MPI_Fint *array_of_maxprocs,
                              MPI_Fint *array_of_info, MPI_Fint *root,
                              MPI_Fint *comm, MPI_Fint *intercomm,
                              MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                              size_t array_of_commands_len,
                              size_t array_of_argv_len) {
  size_t n = *count > 0 ? (size_t)*count : 0;
  int ok = 1;
  char **commands = calloc(n + 1, sizeof *commands);
  char ***argvs = array_of_argv == mpi_fortran_argvs_null_
                      ? MPI_ARGVS_NULL
                      : calloc(n + 1, sizeof *argvs);
  if (commands == NULL || (array_of_argv != mpi_fortran_argvs_null_ &&
                           argvs == NULL))
    ok = 0;
  for (size_t i = 0; ok && i < n; ++i) {
    commands[i] = f_str_in(array_of_commands + i * array_of_commands_len,
                           array_of_commands_len);
    if (commands[i] == NULL) ok = 0;
    if (argvs != MPI_ARGVS_NULL)
      argvs[i] = f_argv_in(array_of_argv + i * array_of_argv_len,
                           array_of_argv_len, n, &ok);
  }
  if (!ok) {
    *ierr = MPI_ERR_NO_MEM;
  } else {
    *ierr = MPI_Comm_spawn_multiple(*count, commands, argvs,
                                    array_of_maxprocs, array_of_info, *root,
                                    *comm, intercomm,
                                    f_errcodes(array_of_errcodes));
  }
  for (size_t i = 0; commands != NULL && i < n; ++i) free(commands[i]);
  free(commands);
  for (size_t i = 0; argvs != MPI_ARGVS_NULL && argvs != NULL && i < n; ++i)
    f_argv_free(argvs[i]);
  if (argvs != MPI_ARGVS_NULL) free(argvs);
}

/* User data representations: Fortran conversion and extent procedures
 * take every argument by reference and return through IERROR; C calls
 * them through these trampolines with a record that holds them and the
 * extra state. A representation stays registered for the program's life,
 * and so does its record. MPI_CONVERSION_FN_NULL and (mpi_f08's)
 * MPI_CONVERSION_FN_NULL_C are procedures of their own, known by their
 * addresses (never called). MPI_REGISTER_DATAREP_C's conversions differ
 * only in their count, an INTEGER(KIND=MPI_COUNT_KIND). */
typedef void f_conversion_fn(void *, MPI_Fint *, MPI_Fint *, void *,
                             MPI_Offset *, MPI_Aint *, MPI_Fint *);
typedef void f_conversion_fn_c(void *, MPI_Fint *, MPI_Count *, void *,
                               MPI_Offset *, MPI_Aint *, MPI_Fint *);
typedef void f_extent_fn(MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *);

struct f_datarep {
  void (*read)(void);
  void (*write)(void);
  void (*extent)(void);
  MPI_Aint extra;
};

F_CONVERSION_NULL(mpi_conversion_fn_null_, MPI_Fint)
F_CONVERSION_NULL(mpi_conversion_fn_null_c_, MPI_Count)

static int f_convert(void (*fn)(void), struct f_datarep *d, void *userbuf,
                     MPI_Datatype datatype, int count, void *filebuf,
                     MPI_Offset position) {
  MPI_Fint type = (MPI_Fint)datatype, n = count, ierr = MPI_SUCCESS;
  MPI_Offset at = position;
  ((f_conversion_fn *)fn)(userbuf, &type, &n, filebuf, &at, &d->extra, &ierr);
  return ierr;
}

static int f_datarep_read(void *userbuf, MPI_Datatype datatype, int count,
                          void *filebuf, MPI_Offset position, void *extra) {
  struct f_datarep *d = extra;
  return f_convert(d->read, d, userbuf, datatype, count, filebuf, position);
}

static int f_datarep_write(void *userbuf, MPI_Datatype datatype, int count,
                           void *filebuf, MPI_Offset position, void *extra) {
  struct f_datarep *d = extra;
  return f_convert(d->write, d, userbuf, datatype, count, filebuf, position);
}

static int f_convert_c(void (*fn)(void), struct f_datarep *d, void *userbuf,
                       MPI_Datatype datatype, MPI_Count count, void *filebuf,
                       MPI_Offset position) {
  MPI_Fint type = (MPI_Fint)datatype, ierr = MPI_SUCCESS;
  MPI_Count n = count;
  MPI_Offset at = position;
  ((f_conversion_fn_c *)fn)(userbuf, &type, &n, filebuf, &at, &d->extra,
                            &ierr);
  return ierr;
}

static int f_datarep_read_c(void *userbuf, MPI_Datatype datatype,
                            MPI_Count count, void *filebuf,
                            MPI_Offset position, void *extra) {
  struct f_datarep *d = extra;
  return f_convert_c(d->read, d, userbuf, datatype, count, filebuf, position);
}

static int f_datarep_write_c(void *userbuf, MPI_Datatype datatype,
                             MPI_Count count, void *filebuf,
                             MPI_Offset position, void *extra) {
  struct f_datarep *d = extra;
  return f_convert_c(d->write, d, userbuf, datatype, count, filebuf,
                     position);
}

static int f_datarep_extent(MPI_Datatype datatype, MPI_Aint *file_extent,
                            void *extra) {
  struct f_datarep *d = extra;
  MPI_Fint type = (MPI_Fint)datatype, ierr = MPI_SUCCESS;
  MPI_Aint e = 0;
  ((f_extent_fn *)d->extent)(&type, &e, &d->extra, &ierr);
  if (ierr == MPI_SUCCESS) *file_extent = e;
  return ierr;
}

/* The record of a representation being registered; NULL when out of
 * memory. */
static struct f_datarep *f_datarep_new(void (*read)(void),
                                       void (*write)(void),
                                       void (*extent)(void),
                                       const MPI_Aint *extra_state) {
  struct f_datarep *d = malloc(sizeof *d);
  if (d == NULL) return NULL;
  d->read = read;
  d->write = write;
  d->extent = extent;
  d->extra = *extra_state;
  return d;
}

/* The C copy of the representation's name and its callbacks' record, both
 * of MPI_Register_datarep(_c); NULL (and *ierr set) when out of memory. */
static struct f_datarep *f_datarep_begin(const char *datarep, size_t datarep_len,
                                         void (*read)(void), void (*write)(void),
                                         void (*extent)(void), MPI_Aint *extra_state,
                                         char **name, MPI_Fint *ierr) {
  *name = f_str_in(datarep, datarep_len);
  struct f_datarep *d = f_datarep_new(read, write, extent, extra_state);
  if (*name == NULL || d == NULL) {
    free(*name);
    free(d);
    *ierr = MPI_ERR_NO_MEM;
    return NULL;
  }
  return d;
}

void mpi_register_datarep_(const char *datarep,
                           void (*read_conversion_fn)(void),
                           void (*write_conversion_fn)(void),
                           void (*dtype_file_extent_fn)(void),
                           MPI_Aint *extra_state, MPI_Fint *ierr,
                           size_t datarep_len) {
  void (*none)(void) = (void (*)(void))mpi_conversion_fn_null_;
  char *name;
  struct f_datarep *d =
      f_datarep_begin(datarep, datarep_len, read_conversion_fn, write_conversion_fn,
                      dtype_file_extent_fn, extra_state, &name, ierr);
  if (d == NULL) return;
  *ierr = MPI_Register_datarep(
      name, read_conversion_fn == none ? MPI_CONVERSION_FN_NULL : f_datarep_read,
      write_conversion_fn == none ? MPI_CONVERSION_FN_NULL : f_datarep_write,
      f_datarep_extent, d);
  free(name);
  if (*ierr != MPI_SUCCESS) free(d);
}

void mpi_register_datarep_c_(const char *datarep,
                             void (*read_conversion_fn)(void),
                             void (*write_conversion_fn)(void),
                             void (*dtype_file_extent_fn)(void),
                             MPI_Aint *extra_state, MPI_Fint *ierr,
                             size_t datarep_len) {
  void (*none)(void) = (void (*)(void))mpi_conversion_fn_null_c_;
  char *name;
  struct f_datarep *d =
      f_datarep_begin(datarep, datarep_len, read_conversion_fn, write_conversion_fn,
                      dtype_file_extent_fn, extra_state, &name, ierr);
  if (d == NULL) return;
  *ierr = MPI_Register_datarep_c(
      name,
      read_conversion_fn == none ? MPI_CONVERSION_FN_NULL_C : f_datarep_read_c,
      write_conversion_fn == none ? MPI_CONVERSION_FN_NULL_C
                                  : f_datarep_write_c,
      f_datarep_extent, d);
  free(name);
  if (*ierr != MPI_SUCCESS) free(d);
}

/* Generalized requests: the Fortran callbacks and extra state, freed by
 * the free callback (MPI calls it once, when the request is freed). */
typedef void f_query_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void f_free_fn(MPI_Aint *, MPI_Fint *);
typedef void f_cancel_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);

struct f_grequest {
  void (*query)(void);
  void (*free)(void);
  void (*cancel)(void);
  MPI_Aint extra;
};

static int f_grequest_query(void *extra, MPI_Status *status) {
  struct f_grequest *g = extra;
  MPI_Fint s[BDMPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;
  memcpy(s, status, sizeof s);
  ((f_query_fn *)(void (*)(void))g->query)(&g->extra, s, &ierr);
  memcpy(status, s, sizeof s);
  return ierr;
}

static int f_grequest_free(void *extra) {
  struct f_grequest *g = extra;
  MPI_Fint ierr = MPI_SUCCESS;
  ((f_free_fn *)(void (*)(void))g->free)(&g->extra, &ierr);
  free(g);
  return ierr;
}

static int f_grequest_cancel(void *extra, int complete) {
  struct f_grequest *g = extra;
  MPI_Fint fcomplete = complete != 0, ierr = MPI_SUCCESS;
  ((f_cancel_fn *)(void (*)(void))g->cancel)(&g->extra, &fcomplete, &ierr);
  return ierr;
}

void mpi_grequest_start_(void (*query_fn)(void), void (*free_fn)(void),
                         void (*cancel_fn)(void), MPI_Aint *extra_state,
                         MPI_Fint *request, MPI_Fint *ierr) {
  struct f_grequest *g = malloc(sizeof *g);
  if (g == NULL) { *ierr = MPI_ERR_NO_MEM; return; }
  g->query = query_fn;
  g->free = free_fn;
  g->cancel = cancel_fn;
  g->extra = *extra_state;
  *ierr = MPI_Grequest_start(f_grequest_query, f_grequest_free,
                             f_grequest_cancel, g, request);
  if (*ierr != MPI_SUCCESS) free(g);
}
'''

C_HANDWRITTEN = {'MPI_Init', 'MPI_Init_thread', 'MPI_Pcontrol',
                 'MPI_Info_create_env', 'MPI_Buffer_detach', 'MPI_Buffer_detach_c',
                 'MPI_Comm_create_keyval', 'MPI_Type_create_keyval',
                 'MPI_Win_create_keyval',
                 'MPI_Keyval_create', 'MPI_Grequest_start',
                 'MPI_Comm_spawn', 'MPI_Comm_spawn_multiple',
                 'MPI_Register_datarep', 'MPI_Register_datarep_c'}


def with_pmpi(text):
    """Every entry point mpi_x_ defined in text becomes the strong pmpi_x_
    with a weak alias mpi_x_ after it, as the C functions are: a profiling
    tool in Fortran defines mpi_send_ and reaches the library through
    pmpi_send_."""
    names = []

    def rename(m):
        names.append(m.group(2))
        return '%s p%s(' % (m.group(1), m.group(2))
    text = re.sub(r'^(void|double|MPI_Aint) (mpi_\w+_)\(', rename, text,
                  flags=re.M)
    aliases = ['extern __typeof__(p%s) %s __attribute__((weak, '
               'alias("p%s")));' % (n, n, n) for n in names]
    return text + '\n' + '\n'.join(aliases)


def gen_c(funcs):
    out = [C_PROLOGUE]
    for blk, ctype, n, _ in SENTINELS:
        if blk in SENTINELS_IN_LIBBDMPI:
            continue
        out.append("%s %s_[%d] __attribute__((aligned(16)));" % (ctype, blk, n))
    out.append(C_HELPERS)
    out.append(with_pmpi(C_SPECIAL))
    for f in funcs:
        if f.name in C_HANDWRITTEN:
            continue
        # The mpi_f08 shim calls the weak name: a tool's wrapper sees the
        # calls of all three interfaces.
        out.append(with_pmpi(c_wrapper(f)))
        out.append('')
        if k_has(f, 'choice'):
            out.append(c_f08_shim(f))
            out.append('')
        elif k_has(f, 'detach'):
            out.append(c_f08_detach_shim(f))
            out.append('')
    return '\n'.join(out)


# ------------------------------------------------------------ constants

# Constants passed where Fortran wants INTEGER(KIND=MPI_OFFSET_KIND).
OFFSET_CONSTANTS = {'MPI_DISPLACEMENT_CURRENT'}

def fortran_constants(consts):
    """(name, type, value) for Fortran, handles as integers."""
    out = []
    skip = {'MPI_VERSION', 'MPI_SUBVERSION'}
    version = {}
    for name, kind, val in consts:
        if name in skip:
            version[name] = val
            continue
        out.append((name, kind, val))
    # mpi.h's level, whatever it is.
    out += [('MPI_VERSION', 'integer', version['MPI_VERSION']),
            ('MPI_SUBVERSION', 'integer', version['MPI_SUBVERSION']),
            ('MPI_STATUS_SIZE', 'integer', 6), ('MPI_SOURCE', 'integer', 1),
            ('MPI_TAG', 'integer', 2), ('MPI_ERROR', 'integer', 3),
            ('MPI_ADDRESS_KIND', 'integer', 8),
            ('MPI_OFFSET_KIND', 'integer', 8),
            ('MPI_COUNT_KIND', 'integer', 8),
            ('MPI_INTEGER_KIND', 'integer', 4)]
    return out


MPIF_NOTE = '''\
! mpif.h -- BDMPI's MPI constants and routines for Fortran 77 style code.
! Generated by src/fortran/gen_fortran.py from BDMPI's mpi.h: do not edit.
! Valid in both fixed and free source form.
'''

FUNC_TYPES = [('double precision', ['MPI_WTIME', 'MPI_WTICK'])]


def gen_mpif(funcs, consts):
    funcs = [f for f in funcs if not is_large_count(f.name)]
    out = [MPIF_NOTE]
    # Kinds first: other declarations use them.
    cs = fortran_constants(consts)
    kinds = [c for c in cs if c[0].endswith('_KIND') or c[0] ==
             'MPI_STATUS_SIZE']
    rest = [c for c in cs if c not in kinds]
    for name, _, val in kinds + rest:
        t = 'integer(kind=MPI_OFFSET_KIND)' if name in OFFSET_CONSTANTS \
            else 'integer'
        out.append('      %s %s' % (t, name))
        out.append('      parameter (%s=%d)' % (name, val))
    out.append('      logical MPI_SUBARRAYS_SUPPORTED')
    out.append('      parameter (MPI_SUBARRAYS_SUPPORTED=.false.)')
    out.append('      logical MPI_ASYNC_PROTECTS_NONBLOCKING')
    out.append('      parameter (MPI_ASYNC_PROTECTS_NONBLOCKING=.false.)')
    for blk, _, _, decl in SENTINELS:
        name = decl.split()[1].split('(')[0]
        out.append('      %s' % decl)
        out.append('      common /%s/ %s' % (blk, name))
    out += fixed_form(['external ' + ', '.join(F_CALLBACKS)])
    # Explicit interfaces for the subroutines, so that gfortran (10 and
    # later) does not reject a program that passes different types to one
    # routine; everything but scalars is NO_ARG_CHECK, as lenient as the
    # implicit interfaces old code was written against.
    out.append('      interface')
    for f in funcs:
        if f.ret == 'int':
            out += fixed_form(mpif_interface(f))
    out.append('      end interface')
    # The functions' types, also of their profiling names (PMPI_WTIME
    # would otherwise be an implicit REAL).
    for p in ('', 'P'):
        out.append('      external %sMPI_WTIME, %sMPI_WTICK' % (p, p))
        out.append('      double precision %sMPI_WTIME, %sMPI_WTICK' % (p, p))
        out.append('      external %sMPI_AINT_ADD, %sMPI_AINT_DIFF' % (p, p))
        out.append('      integer(kind=MPI_ADDRESS_KIND) %sMPI_AINT_ADD' % p)
        out.append('      integer(kind=MPI_ADDRESS_KIND) %sMPI_AINT_DIFF' % p)
    return '\n'.join(out) + '\n'


def mpif_interface(f):
    """An interface body for mpif.h: no host association (so literal kinds
    and sizes) and NO_ARG_CHECK for choice buffers and arrays."""
    lines = ['subroutine %s(%s)' % (f.name, ', '.join(
        [p.name for p in f.params] + ['ierror']))]
    for p in f.params:
        decl = f90_dummy(f, p, False)[-1]
        decl = decl.replace('MPI_ADDRESS_KIND', '8').replace(
            'MPI_OFFSET_KIND', '8').replace('MPI_COUNT_KIND', '8').replace(
            'MPI_STATUS_SIZE', '6')
        array = p.kind in ('choice', 'detach', 'int_arr', 'indices_out',
                           'weights', 'int_arr3', 'handle_arr', 'aint_arr',
                           'offset_arr', 'count_arr', 'faint_arr')
        if array:
            lines.append('!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % p.name)
            lines.append('type(*), dimension(*) :: %s' % p.name)
        else:
            lines.append(decl.replace(', intent(in)', ''))
    lines.append('integer ierror')
    lines.append('end subroutine')
    return lines


def fixed_form(lines):
    """Lines valid in fixed and free source form: code in columns 7-72, a
    continued line ends with & in column 73 (a comment to fixed form) and
    the next has & in column 6."""
    out = []
    for line in lines:
        if line.startswith('!'):
            out.append(line)
            continue
        first = True
        while line:
            lead = '      ' if first else '     &'
            room = 72 - len(lead)
            if len(line) <= room:
                out.append(lead + line)
                break
            cut = line.rfind(', ', 0, room) + 1
            if cut <= 0:
                cut = line.rfind(' ', 0, room)
            out.append((lead + line[:cut]).ljust(72) + '&')
            line = line[cut:]
            first = False
    return out


# ----------------------------------------------------- module mpi (F90)

def f90_dummy(f, p, f08):
    """The declaration of p in an interface of module mpi (f08=False) or a
    procedure of mpi_f08."""
    k, n = p.kind, p.name
    handle = p.ctype.replace('const ', '').replace('*', '').strip()
    intent_in = 'intent(in)'
    if k == 'choice':
        if f08:
            contig = '' if is_nonblocking(f.name) else ', contiguous'
            return ['type(*), dimension(..)%s :: %s' % (contig, n)]
        return ['!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % n,
                'type(*), dimension(*) :: %s' % n]
    if k == 'detach':
        if f08:
            return ['type(c_ptr), intent(out) :: %s' % n]
        return ['!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % n,
                'type(*), dimension(*) :: %s' % n]
    if k == 'baseptr':
        if f08:
            return ['type(c_ptr), intent(out) :: %s' % n]
        return ['integer(kind=MPI_ADDRESS_KIND) :: %s' % n]
    if k in ('int_in',):
        return ['integer, %s :: %s' % (intent_in, n)]
    if k == 'logical_in':
        return ['logical, %s :: %s' % (intent_in, n)]
    if k in ('int_out', 'index_out'):
        return ['integer :: %s' % n]
    if k == 'logical_out':
        return ['logical :: %s' % n]
    if k in ('int_arr', 'indices_out', 'weights'):
        return ['integer :: %s(*)' % n]
    if k == 'int_arr3':
        return ['integer :: %s(3, *)' % n]
    if k == 'logical_arr':
        return ['logical :: %s(*)' % n]
    if k in ('handle_in', 'handle_out', 'handle_arr'):
        t = 'type(%s)' % handle if f08 else 'integer'
        intent = ', intent(in)' if k == 'handle_in' else ''
        dim = '(*)' if k == 'handle_arr' else ''
        return ['%s%s :: %s%s' % (t, intent, n, dim)]
    for base, kind in (('aint', 'MPI_ADDRESS_KIND'),
                       ('offset', 'MPI_OFFSET_KIND'),
                       ('count', 'MPI_COUNT_KIND')):
        if k == base + '_in':
            return ['integer(kind=%s), intent(in) :: %s' % (kind, n)]
        if k == base + '_out':
            return ['integer(kind=%s) :: %s' % (kind, n)]
        if k == base + '_arr':
            return ['integer(kind=%s) :: %s(*)' % (kind, n)]
    if k in ('attr_in', 'attr_out'):
        intent = ', intent(in)' if k == 'attr_in' else ''
        return ['integer(kind=MPI_ADDRESS_KIND)%s :: %s' % (intent, n)]
    if k in ('faint_in', 'attr_in_fint'):
        return ['integer, intent(in) :: %s' % n]
    if k in ('faint_out', 'attr_out_fint'):
        return ['integer :: %s' % n]
    if k == 'faint_arr':
        return ['integer :: %s(*)' % n]
    if k in ('status_out', 'status_in', 'status_inout'):
        if f08:
            return ['type(MPI_Status) :: %s' % n]
        return ['integer :: %s(MPI_STATUS_SIZE)' % n]
    if k == 'statuses':
        if f08:
            return ['type(MPI_Status) :: %s(*)' % n]
        return ['integer :: %s(MPI_STATUS_SIZE, *)' % n]
    if k == 'str_in':
        return ['character(len=*), intent(in) :: %s' % n]
    if k == 'str_out':
        return ['character(len=*) :: %s' % n]
    if k in ('str_arr', 'argv'):
        return ['character(len=*), intent(in) :: %s(*)' % n]
    if k == 'argvs':
        return ['character(len=*), intent(in) :: %s(count, *)' % n]
    if k == 'fnptr':
        return ['external :: %s' % n]
    raise ValueError('%s: no Fortran declaration for %s' % (f.name, k))


def f90_interface(f):
    names = [p.name for p in f.params]
    uses = []
    if any(p.kind in ('baseptr',) for p in f.params):
        uses.append('use, intrinsic :: iso_c_binding, only: c_ptr')
    if f.ret == 'int':
        head = 'subroutine %s(%s)' % (f.name, ', '.join(names + ['ierror']))
        end = 'end subroutine %s' % f.name
    else:
        rtype = {'double': 'double precision',
                 'MPI_Aint': 'integer(kind=MPI_ADDRESS_KIND)'}[f.ret]
        head = '%s function %s(%s)' % (rtype, f.name, ', '.join(names))
        end = 'end function %s' % f.name
    body = []
    if f.ret == 'MPI_Aint' or any(
            'KIND' in d or 'MPI_STATUS_SIZE' in d
            for p in f.params for d in f90_dummy(f, p, False)):
        body.append('import :: MPI_ADDRESS_KIND, MPI_OFFSET_KIND, '
                    'MPI_COUNT_KIND, MPI_STATUS_SIZE')
    for p in f.params:
        body += f90_dummy(f, p, False)
    if f.ret == 'int':
        body.append('integer, intent(out) :: ierror')
    return [head] + ['  ' + u for u in uses] + ['  ' + b for b in body] + \
        [end]


def f90_wrap(lines, indent):
    """Breaks lines longer than gfortran's 132 columns with continuations."""
    out = []
    for line in lines:
        line = ' ' * indent + line if line else line
        while len(line) > 100:
            cut = line.rfind(', ', 0, 100) + 1
            if cut <= 0:
                break
            out.append(line[:cut] + ' &')
            line = ' ' * (indent + 4) + line[cut:].lstrip()
        out.append(line)
    return out


def constants_f90(consts, f08):
    out = []
    cs = fortran_constants(consts)
    kinds = [c for c in cs if c[0].endswith('_KIND') or c[0] ==
             'MPI_STATUS_SIZE']
    rest = [c for c in cs if c not in kinds]
    for name, kind, val in kinds + rest:
        if f08 and kind in HANDLE_TYPES:
            out.append('type(%s), parameter :: %s = %s(%d)' %
                       (kind, name, kind, val))
        elif name in OFFSET_CONSTANTS:
            out.append('integer(kind=MPI_OFFSET_KIND), parameter :: %s = %d'
                       % (name, val))
        else:
            out.append('integer, parameter :: %s = %d' % (name, val))
    # .false. in mpi_f08 too: a section passed to a non-blocking call is
    # refused (MPI_ERR_BUFFER), not described to the library.
    out.append('logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.')
    out.append('logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = '
               '.false.')
    return out


def sentinel_decls(f08):
    out = []
    for blk, _, _, decl in SENTINELS:
        name = decl.split()[1].split('(')[0]
        if f08 and name == 'MPI_STATUS_IGNORE':
            decl = 'type(MPI_Status) MPI_STATUS_IGNORE'
        elif f08 and name == 'MPI_STATUSES_IGNORE':
            decl = 'type(MPI_Status) MPI_STATUSES_IGNORE(1)'
        out.append(decl)
        out.append('common /%s/ %s' % (blk, name))
        out.append('save :: /%s/' % blk)
    return out


def gen_mpi_module(funcs, consts):
    funcs = [f for f in funcs if not is_large_count(f.name)]
    out = ['! Generated by src/fortran/gen_fortran.py from BDMPI\'s mpi.h: '
           'do not edit.',
           'module mpi',
           '  use bdmpi_sizeof, only: MPI_Sizeof',
           '  implicit none',
           '  public']
    out += f90_wrap(constants_f90(consts, False), 2)
    out += f90_wrap(sentinel_decls(False), 2)
    out += f90_wrap(['external :: ' + ', '.join(F_CALLBACKS)], 2)
    out.append('  interface')
    for f in funcs:
        out += f90_wrap(f90_interface(f), 4)
    # The profiling names (pmpi_x_ in the library), for a tool in Fortran.
    for f in funcs:
        lines = f90_interface(f)
        lines[0] = re.sub(r'\b%s\(' % f.name, 'P%s(' % f.name, lines[0])
        lines[-1] = lines[-1].replace(f.name, 'P' + f.name)
        out += f90_wrap(lines, 4)
    out.append('  end interface')
    out.append('end module mpi')
    return '\n'.join(out) + '\n'


# ------------------------------------------------------- module mpi_f08

F08_TYPES = '''\
type, bind(C) :: MPI_Status
  integer(c_int) :: MPI_SOURCE
  integer(c_int) :: MPI_TAG
  integer(c_int) :: MPI_ERROR
  ! The rest of C's MPI_Status: the cancelled flag and the byte count.
  integer(c_int) :: bdmpi_cancelled
  integer(c_int) :: bdmpi_count(2)
end type MPI_Status
'''


def gen_f08_module(funcs, consts):
    handles = sorted(HANDLE_TYPES)
    out = ['! Generated by src/fortran/gen_fortran.py from BDMPI\'s mpi.h: '
           'do not edit.',
           'module mpi_f08',
           '  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_size_t, '
           'c_funptr, c_funloc',
           '  use bdmpi_sizeof, only: MPI_Sizeof',
           '  implicit none',
           '  private :: c_int, c_size_t, c_funptr, c_funloc']
    for h in handles:
        out += ['  type, bind(C) :: %s' % h, '    integer :: MPI_VAL',
                '  end type %s' % h]
    out += ['  ' + l for l in F08_TYPES.splitlines()]
    for op, fn in (('==', 'eq'), ('/=', 'ne')):
        out.append('  interface operator(%s)' % op)
        out += f90_wrap(['module procedure %s' % ', '.join(
            'bdmpi_%s_%s' % (fn, h[4:].lower()) for h in handles)], 4)
        out.append('  end interface')
        out += f90_wrap(['private :: %s' % ', '.join(
            'bdmpi_%s_%s' % (fn, h[4:].lower()) for h in handles)], 2)
    out += f90_wrap(constants_f90(consts, True), 2)
    out += f90_wrap(sentinel_decls(True), 2)
    # An mpi_f08 handle is passed as its one integer: the callbacks of
    # mpif.h serve here too.
    out += f90_wrap(['external :: ' + ', '.join(F_CALLBACKS + F08_CALLBACKS)],
                    2)
    # The generic names of the calls with a large-count twin.
    by_name = {f.name: f for f in funcs}
    large_bases = {f.name[:-2] for f in funcs if is_large_count(f.name)
                   and distinguishable(by_name[f.name[:-2]], f)}
    for base in sorted(large_bases):
        out.append('  interface %s' % base)
        out += f90_wrap(['module procedure %s, %s' % (
            f08_specific(base, large_bases),
            f08_specific(base + '_c', large_bases))], 4)
        out.append('  end interface')
    # The C entry points the procedures call.
    out.append('  interface')
    for f in funcs:
        out += f90_wrap(f08_c_interface(f), 4)
    out.append('  end interface')
    out.append('contains')
    for h in handles:
        for op, fn in (('==', 'eq'), ('/=', 'ne')):
            out += ['  elemental logical function bdmpi_%s_%s(a, b)' %
                    (fn, h[4:].lower()),
                    '    type(%s), intent(in) :: a, b' % h,
                    '    bdmpi_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' %
                    (fn, h[4:].lower(), op),
                    '  end function']
    for f in funcs:
        out += f90_wrap(f08_procedure(f, f08_specific(f.name, large_bases)), 2)
    out.append('end module mpi_f08')
    return '\n'.join(out) + '\n'


def f08_c_interface(f):
    """A bind(C) interface to the C entry point mpi_f08 calls: the shim for
    routines with choice buffers, the mpif.h one otherwise."""
    names = [p.name for p in f.params]
    lens = ['%s_len' % p.name for p in f.strings]
    cname = ('bdmpi_f08_%s' % f.lname[4:]) if k_has(f, 'choice') or \
        k_has(f, 'detach') else '%s_' % f.lname
    if f.ret == 'int':
        head = 'subroutine bdmpi_c_%s(%s) bind(C, name="%s")' % (
            f.lname[4:], ', '.join(names + ['ierror'] + lens), cname)
        end = 'end subroutine'
    else:
        rtype = {'double': 'real(kind=kind(1.0d0))',
                 'MPI_Aint': 'integer(kind=MPI_ADDRESS_KIND)'}[f.ret]
        head = '%s function bdmpi_c_%s(%s) bind(C, name="%s")' % (
            rtype, f.lname[4:], ', '.join(names), cname)
        end = 'end function'
    body = ['import']
    for p in f.params:
        if p.kind == 'choice':
            body.append('type(*), dimension(..) :: %s' % p.name)
        elif p.kind in STRING_KINDS:
            body.append('character(kind=c_char) :: %s(*)' % p.name)
        elif p.kind == 'fnptr':
            body.append('type(c_funptr), value :: %s' % p.name)
        elif p.kind == 'baseptr' or p.kind == 'detach':
            body.append('type(c_ptr) :: %s' % p.name)
        else:
            body += [d.replace(', intent(in)', '').replace(', contiguous', '')
                     for d in f90_dummy(f, p, True)]
    if f.ret == 'int':
        body.append('integer :: ierror')
    for l in lens:
        body.append('integer(c_size_t), value :: %s' % l)
    uses = ['use, intrinsic :: iso_c_binding, only: c_char'] if lens else []
    return [head] + ['  ' + u for u in uses] + ['  ' + b for b in body] + \
        [end]


def f08_procedure(f, pname):
    """The mpi_f08 procedure of f, named pname."""
    names = [p.name for p in f.params]
    lens = ['len(%s, kind=c_size_t)' % p.name for p in f.strings]
    if f.ret != 'int':
        rtype = {'double': 'double precision',
                 'MPI_Aint': 'integer(kind=MPI_ADDRESS_KIND)'}[f.ret]
        head = '%s function %s(%s)' % (rtype, f.name, ', '.join(names))
        body = []
        for p in f.params:
            body += f90_dummy(f, p, True)
        body.append('%s = bdmpi_c_%s(%s)' % (f.name, f.lname[4:],
                                             ', '.join(names)))
        return [head] + ['  ' + b for b in body] + ['end function %s' %
                                                     f.name]
    head = 'subroutine %s(%s)' % (pname, ', '.join(names + ['ierror']))
    body = []
    for p in f.params:
        body += f90_dummy(f, p, True)
    body.append('integer, optional, intent(out) :: ierror')
    body.append('integer :: ierror_c')
    args = ['c_funloc(%s)' % p.name if p.kind == 'fnptr' else p.name
            for p in f.params]
    body.append('call bdmpi_c_%s(%s)' % (f.lname[4:], ', '.join(
        args + ['ierror_c'] + lens)))
    body.append('if (present(ierror)) ierror = ierror_c')
    return [head] + ['  ' + b for b in body] + ['end subroutine %s' % pname]


# ------------------------------------------------------------ MPI_SIZEOF

SIZEOF_TYPES = (
    [('integer', k) for k in (1, 2, 4, 8, 16)] +
    [('real', k) for k in (4, 8, 10, 16)] +
    [('complex', k) for k in (4, 8, 10, 16)] +
    [('logical', k) for k in (1, 2, 4, 8)] +
    [('character', 1)])


def gen_sizeof():
    names = ['bdmpi_sizeof_%s%d' % (t, k) for t, k in SIZEOF_TYPES]
    out = ['! Generated by src/fortran/gen_fortran.py: do not edit.',
           '! MPI_SIZEOF(x, size, ierror): the size in bytes of one element '
           'of x, for',
           '! every intrinsic type and kind gfortran has, scalar or array.',
           'module bdmpi_sizeof',
           '  implicit none',
           '  private',
           '  public :: MPI_Sizeof',
           '  interface MPI_Sizeof']
    out += f90_wrap(['  module procedure ' + ', '.join(names)], 2)
    out.append('  end interface')
    out.append('contains')
    for (t, k), n in zip(SIZEOF_TYPES, names):
        decl = 'character(len=*)' if t == 'character' else \
            '%s(kind=%d)' % (t, k)
        out += ['  subroutine %s(x, size, ierror)' % n,
                '    %s, dimension(..), intent(in) :: x' % decl,
                '    integer, intent(out) :: size',
                '    integer, optional, intent(out) :: ierror',
                '    size = %s' % ('1 + 0 * len(x)' if t == 'character' else
                                   'int(storage_size(x) / 8)'),
                '    if (present(ierror)) ierror = 0',
                '  end subroutine']
    out.append('end module bdmpi_sizeof')
    return '\n'.join(out) + '\n'


# ------------------------------------------------------------------ main

def main():
    if len(sys.argv) != 3:
        sys.exit('usage: gen_fortran.py MPI_H OUT_DIR')
    text = open(sys.argv[1]).read()
    funcs = parse_header(text)
    bad = [f for f in funcs.values() if f.unknown]
    if bad:
        sys.exit('gen_fortran.py: no Fortran mapping for:\n' + '\n'.join(
            '  %s: %s' % (f.name, ', '.join('%s %s' % (p.ctype, p.name)
                                            for p in f.unknown))
            for f in bad) + '\nadd them to classify() or SKIP')
    funcs = [funcs[k] for k in sorted(funcs)]
    consts = parse_constants(text)
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, text in (('bdmpi_fortran.c', gen_c(funcs)),
                       ('mpif.h', gen_mpif(funcs, consts)),
                       ('mpi.f90', gen_mpi_module(funcs, consts)),
                       ('mpi_f08.f90', gen_f08_module(funcs, consts)),
                       ('mpi_sizeof.f90', gen_sizeof())):
        path = os.path.join(sys.argv[2], name)
        # Rewritten only when changed, so that an unchanged mpi.h does not
        # rebuild the modules and whatever uses them.
        try:
            if open(path).read() == text:
                continue
        except OSError:
            pass
        with open(path, 'w') as f:
            f.write(text)


if __name__ == '__main__':
    main()
