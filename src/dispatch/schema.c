/* schema.c — the operator schema parser behind tn_schema_parse (schema.h).
 *
 * Turns "ns::name.overload(Type name=default, *, ...) -> (Type name, ...)" into a tn_schema whose
 * strings and argument arrays all live in one malloc'd block, so a schema is released with one
 * free. The grammar follows what upstream's torch._C.parse_schema accepts for native_functions.yaml
 * and the common hand-written forms: T?, T[], T[N], T?[], T[]?, alias annotations Tensor(a),
 * Tensor(a!), Tensor(a -> *), Tensor(a|b) (on the element or, written after "[]", on the list),
 * "*" (keyword-only marker), "..." (varargs/varret), defaults that are numbers, True/False/None,
 * quoted strings, lists of those, and the identifiers upstream knows (contiguous_format, Mean, long,
 * dtype names...). Parsing is a hand-written recursive descent over characters; every failure
 * returns -1 with "what was expected, what was found, at which column" and a caret line. The parser
 * never reads past the terminating NUL and never writes past the block it sized up front. */
#include "schema.h"
#include "../core/dtype.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tn_type_names[TN_TYPE_COUNT] = {
#define TN_X(E, s) s,
    TN_TYPES(TN_X)
#undef TN_X
};

typedef struct {
    const char *text;
    int pos;
    char *pool; /* string pool inside the block */
    int pool_used, pool_cap;
    char *err;
    int errlen;
    bool failed;
} tn_p;

static bool p_fail(tn_p *p, int at, const char *fmt, ...)
{
    if (p->failed)
        return false;
    p->failed = true;
    if (!p->err || p->errlen <= 0)
        return false;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int tlen = (int)strlen(p->text);
    if (at > tlen)
        at = tlen;
    /* message, then the text (clipped to 200 chars around the error) and a caret under it */
    int start = at > 150 ? at - 150 : 0;
    int stop = tlen - start > 200 ? start + 200 : tlen;
    int n = snprintf(p->err, (size_t)p->errlen, "%s at position %d:\n%.*s\n", msg, at, stop - start,
                     p->text + start);
    for (int i = start; i < at && n >= 0 && n + 2 < p->errlen; i++)
        p->err[n++] = ' ';
    if (n >= 0 && n + 10 < p->errlen)
        memcpy(p->err + n, "^ <--- HERE", 12);
    else if (n >= 0 && n < p->errlen)
        p->err[n] = 0;
    return false;
}

static void skip_ws(tn_p *p)
{
    while (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' || p->text[p->pos] == '\n' ||
           p->text[p->pos] == '\r')
        p->pos++;
}

static bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

/* Describes the token at the current position for messages. */
static const char *found(tn_p *p, char *buf, int n)
{
    const char *s = p->text + p->pos;
    if (!*s)
        return "end of text";
    if (is_ident_start(*s)) {
        int k = 0;
        while (is_ident_char(s[k]) && k < 24)
            k++;
        snprintf(buf, (size_t)n, "'%.*s'", k, s);
    } else {
        snprintf(buf, (size_t)n, "'%c'", *s);
    }
    return buf;
}

static bool expect_char(tn_p *p, char c)
{
    skip_ws(p);
    if (p->text[p->pos] == c) {
        p->pos++;
        return true;
    }
    char b[40];
    return p_fail(p, p->pos, "expected '%c' but found %s", c, found(p, b, sizeof b));
}

static bool peek(tn_p *p, const char *lit)
{
    skip_ws(p);
    size_t n = strlen(lit);
    return strncmp(p->text + p->pos, lit, n) == 0;
}

static bool accept(tn_p *p, const char *lit)
{
    if (peek(p, lit)) {
        p->pos += (int)strlen(lit);
        return true;
    }
    return false;
}

/* Copies text[a, b) into the pool, dropping whitespace outside quotes when squeeze is set. */
static const char *pool_copy(tn_p *p, int a, int b, bool squeeze)
{
    if (b < a)
        b = a;
    if (p->pool_used + (b - a) + 1 > p->pool_cap) {
        p_fail(p, a, "internal: schema string pool exhausted");
        return NULL;
    }
    char *dst = p->pool + p->pool_used;
    int n = 0;
    char q = 0;
    for (int i = a; i < b; i++) {
        char c = p->text[i];
        if (q) {
            dst[n++] = c;
            if (c == '\\' && i + 1 < b)
                dst[n++] = p->text[++i];
            else if (c == q)
                q = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            q = c;
        if (squeeze && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
            continue;
        dst[n++] = c;
    }
    dst[n++] = 0;
    p->pool_used += n;
    return dst;
}

static const char *parse_ident(tn_p *p, const char *what)
{
    skip_ws(p);
    int a = p->pos;
    if (!is_ident_start(p->text[a])) {
        char b[40];
        p_fail(p, a, "expected %s but found %s", what, found(p, b, sizeof b));
        return NULL;
    }
    while (is_ident_char(p->text[p->pos]))
        p->pos++;
    return pool_copy(p, a, p->pos, false);
}

/* ---- types ---- */

static bool lookup_type(const char *s, int n, tn_type_kind *out)
{
    for (int k = 0; k < TN_TYPE_COUNT; k++)
        if ((int)strlen(tn_type_names[k]) == n && strncmp(tn_type_names[k], s, (size_t)n) == 0) {
            *out = (tn_type_kind)k;
            return true;
        }
    return false;
}

/* "(" set ["!"] ["->" set] ")" where set = name ("|" name)* and name = ident | "*" */
static bool parse_alias_set(tn_p *p, const char **out)
{
    skip_ws(p);
    int a = p->pos;
    for (;;) {
        skip_ws(p);
        if (p->text[p->pos] == '*') {
            p->pos++;
        } else if (is_ident_start(p->text[p->pos])) {
            while (is_ident_char(p->text[p->pos]))
                p->pos++;
        } else {
            char b[40];
            return p_fail(p, p->pos, "expected an alias set name but found %s", found(p, b, sizeof b));
        }
        skip_ws(p);
        if (p->text[p->pos] != '|')
            break;
        p->pos++;
    }
    *out = pool_copy(p, a, p->pos, true);
    return *out != NULL;
}

static bool parse_alias(tn_p *p, tn_arg *arg)
{
    /* the '(' has been consumed */
    if (!parse_alias_set(p, &arg->alias_before))
        return false;
    arg->is_write = accept(p, "!");
    arg->alias_after = arg->alias_before;
    if (accept(p, "->")) {
        if (!parse_alias_set(p, &arg->alias_after))
            return false;
    }
    if (!expect_char(p, ')'))
        return false;
    arg->alias_set = arg->alias_before[0];
    return true;
}

bool (*tn_schema_opaque_type)(const char *name, int n);

static bool parse_type(tn_p *p, tn_arg *arg)
{
    skip_ws(p);
    int a = p->pos;
    if (p->text[a] == '(')
        return p_fail(p, a, "tuple types are not supported");
    if (!is_ident_start(p->text[a])) {
        char b[40];
        return p_fail(p, a, "expected a type but found %s", found(p, b, sizeof b));
    }
    while (is_ident_char(p->text[p->pos]))
        p->pos++;
    /* a dotted name (a registered opaque type, e.g. torch.distributed.device_mesh.DeviceMesh) */
    int dotted = 0;
    while (p->text[p->pos] == '.' && is_ident_start(p->text[p->pos + 1])) {
        dotted = 1;
        p->pos++;
        while (is_ident_char(p->text[p->pos]))
            p->pos++;
    }
    if (!dotted && lookup_type(p->text + a, p->pos - a, &arg->type)) {
        /* a schema type */
    } else if (tn_schema_opaque_type && tn_schema_opaque_type(p->text + a, p->pos - a)) {
        arg->type = TN_TYPE_ANY;
    } else
        return p_fail(p, a, "unknown type specifier '%.*s'", p->pos - a > 40 ? 40 : p->pos - a,
                      p->text + a);
    arg->list_size = -1;
    if (accept(p, "(")) {
        if (!parse_alias(p, arg))
            return false;
    }
    bool had_alias = arg->alias_before != NULL;
    /* suffixes: at most one "?" before the list, one list, one "?" after it */
    if (accept(p, "?"))
        arg->optional = true;
    if (had_alias && arg->optional && peek(p, "("))
        return p_fail(p, p->pos, "alias annotation must follow the base type");
    if (accept(p, "[")) {
        arg->is_list = true;
        arg->elem_optional = arg->optional;
        arg->optional = false;
        arg->alias_on_elem = had_alias;
        skip_ws(p);
        if (is_digit(p->text[p->pos])) {
            long long n = 0;
            while (is_digit(p->text[p->pos])) {
                n = n * 10 + (p->text[p->pos] - '0');
                if (n > 1000000)
                    return p_fail(p, p->pos, "list size too large");
                p->pos++;
            }
            arg->list_size = (int)n;
        }
        if (!expect_char(p, ']'))
            return false;
        if (arg->list_size < 0 && peek(p, "[]")) { /* T[][] (e.g. torch.onnx's custom ops) */
            accept(p, "[");
            if (!expect_char(p, ']'))
                return false;
            arg->nested_list = true;
        }
        if (accept(p, "(")) {
            if (had_alias)
                return p_fail(p, p->pos - 1, "two alias annotations on one type");
            if (!parse_alias(p, arg))
                return false;
            arg->alias_on_elem = false;
        }
        if (accept(p, "?"))
            arg->optional = true;
        if (arg->elem_optional && arg->optional)
            return p_fail(p, p->pos - 1, "unsupported type form (optional list of optionals)");
    }
    skip_ws(p);
    if (p->text[p->pos] == '[' || p->text[p->pos] == '?')
        return p_fail(p, p->pos, "unsupported type form (nested list or repeated '?')");
    return true;
}

/* ---- defaults ---- */

bool tn_schema_ident_value(const char *id, tn_type_kind type, int64_t *out)
{
    static const struct { const char *n; int v; } common[] = {
        {"Mean", 1}, {"contiguous_format", 0}, {"strided", 0},
        {"long", 4}, {"float", 6}, {"complex", 9},
    };
    static const struct { const char *n; int v; } st_alias[] = {
        {"short", 2}, {"int", 3}, {"half", 5}, {"double", 7}, {"chalf", 8}, {"cfloat", 9},
        {"cdouble", 10},
    };
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        if (!strcmp(id, common[i].n)) {
            *out = common[i].v;
            return true;
        }
    if (type != TN_TYPE_SCALARTYPE)
        return false;
    for (size_t i = 0; i < sizeof st_alias / sizeof st_alias[0]; i++)
        if (!strcmp(id, st_alias[i].n)) {
            *out = st_alias[i].v;
            return true;
        }
    static const char *const dnames[] = {
#define TN_X(E, n, sz, k) #n,
        TN_DTYPES(TN_X)
#undef TN_X
    };
    for (size_t i = 0; i < sizeof dnames / sizeof dnames[0]; i++)
        if (!strcmp(id, dnames[i])) {
            *out = (int64_t)i;
            return true;
        }
    return false;
}

/* number: -?(digits[.digits*]|.digits)([eE][+-]?digits)? ; leaves pos after it */
static bool scan_number(tn_p *p)
{
    int i = p->pos;
    const char *t = p->text;
    if (t[i] == '-')
        i++;
    int digits = 0;
    while (is_digit(t[i]))
        i++, digits++;
    if (t[i] == '.') {
        i++;
        while (is_digit(t[i]))
            i++, digits++;
    }
    if (!digits) {
        char b[40];
        return p_fail(p, p->pos, "expected a number but found %s", found(p, b, sizeof b));
    }
    if (t[i] == 'e' || t[i] == 'E') {
        int j = i + 1;
        if (t[j] == '+' || t[j] == '-')
            j++;
        if (!is_digit(t[j]))
            return p_fail(p, j, "malformed exponent in number");
        while (is_digit(t[j]))
            j++;
        i = j;
    }
    if (is_ident_char(t[i]) || t[i] == '.')
        return p_fail(p, i, "invalid numeric default value");
    p->pos = i;
    return true;
}

static bool scan_string(tn_p *p)
{
    const char *t = p->text;
    char q = t[p->pos];
    int i = p->pos + 1;
    for (;;) {
        if (!t[i])
            return p_fail(p, p->pos, "unterminated string literal");
        if (t[i] == '\\') {
            if (!t[i + 1])
                return p_fail(p, p->pos, "unterminated string literal");
            i += 2;
            continue;
        }
        if (t[i] == q)
            break;
        i++;
    }
    p->pos = i + 1;
    return true;
}

/* one scalar default: number, True/False/None, string, or known identifier */
static bool scan_scalar(tn_p *p, tn_type_kind type, bool in_list)
{
    skip_ws(p);
    const char *t = p->text;
    char c = t[p->pos];
    if (c == '\'' || c == '"') {
        if (in_list)
            return p_fail(p, p->pos, "strings are not supported in list defaults");
        return scan_string(p);
    }
    if (is_ident_start(c)) {
        int a = p->pos;
        while (is_ident_char(t[p->pos]))
            p->pos++;
        int n = p->pos - a;
        char id[48];
        if (n >= (int)sizeof id)
            return p_fail(p, a, "invalid default value");
        memcpy(id, t + a, (size_t)n);
        id[n] = 0;
        if (!strcmp(id, "True") || !strcmp(id, "False"))
            return true;
        if (!strcmp(id, "None")) {
            if (in_list)
                return p_fail(p, a, "None is not supported inside a list default");
            return true;
        }
        int64_t v;
        if (in_list || !tn_schema_ident_value(id, type, &v))
            return p_fail(p, a, "invalid default value '%s'", id);
        return true;
    }
    return scan_number(p);
}

static bool parse_default(tn_p *p, tn_arg *arg)
{
    skip_ws(p);
    int a = p->pos;
    const char *t = p->text;
    bool tensor_like = arg->type == TN_TYPE_TENSOR && !arg->is_list;
    if (tensor_like || (arg->is_list && arg->type == TN_TYPE_TENSOR)) {
        if (!(strncmp(t + a, "None", 4) == 0 && !is_ident_char(t[a + 4]))) {
            char b[40];
            return p_fail(p, a, "expected None but found %s", found(p, b, sizeof b));
        }
        p->pos += 4;
    } else if (arg->is_list && !arg->optional) {
        if (t[a] == '[') {
            p->pos++;
            skip_ws(p);
            if (t[p->pos] != ']') {
                for (;;) {
                    if (!scan_scalar(p, arg->type, true))
                        return false;
                    skip_ws(p);
                    if (t[p->pos] == ']')
                        break;
                    if (!expect_char(p, ','))
                        return false;
                }
            }
            p->pos++; /* ']' */
        } else if (arg->list_size > 0 && (is_digit(t[a]) || t[a] == '-' || t[a] == '.' ||
                                           is_ident_start(t[a]))) {
            if (!scan_scalar(p, arg->type, true))
                return false;
        } else {
            char b[40];
            return p_fail(p, a, "expected '[' but found %s", found(p, b, sizeof b));
        }
    } else if (arg->is_list) { /* optional list: None (or a scalar, as upstream tolerates) */
        if (t[a] == '[')
            return p_fail(p, a, "expected None or a number but found '['");
        if (!scan_scalar(p, arg->type, false))
            return false;
    } else {
        if (t[a] == '[')
            return p_fail(p, a, "list default for a non-list argument");
        if (!scan_scalar(p, arg->type, false))
            return false;
    }
    arg->default_text = pool_copy(p, a, p->pos, false);
    return arg->default_text != NULL;
}

/* ---- arguments and returns ---- */

static bool parse_arg(tn_p *p, tn_arg *arg, bool is_ret, bool kwarg_only)
{
    memset(arg, 0, sizeof *arg);
    arg->list_size = -1;
    arg->kwarg_only = kwarg_only;
    if (!parse_type(p, arg))
        return false;
    skip_ws(p);
    if (is_ret) {
        if (is_ident_start(p->text[p->pos])) {
            if (!(arg->name = parse_ident(p, "a return name")))
                return false;
        }
        skip_ws(p);
        if (p->text[p->pos] == '=')
            return p_fail(p, p->pos, "returns cannot have default values");
        return true;
    }
    if (!(arg->name = parse_ident(p, "an argument name")))
        return false;
    if (accept(p, "=")) {
        if (!parse_default(p, arg))
            return false;
    }
    return true;
}

static bool parse_args(tn_p *p, tn_schema *s, tn_arg *slots, int cap)
{
    if (!expect_char(p, '('))
        return false;
    s->args = slots;
    if (accept(p, ")"))
        return true;
    bool kw = false, seen_default = false;
    for (;;) {
        skip_ws(p);
        int at = p->pos;
        if (s->is_vararg)
            return p_fail(p, at, "'...' must be the last element of the argument list");
        if (accept(p, "...")) {
            s->is_vararg = true;
        } else if (p->text[p->pos] == '*' ) {
            p->pos++;
            kw = true;
        } else {
            if (s->nargs >= cap)
                return p_fail(p, at, "internal: too many arguments");
            tn_arg *a = &slots[s->nargs];
            if (!parse_arg(p, a, false, kw))
                return false;
            if (a->default_text)
                seen_default = true;
            else if (seen_default && !kw)
                return p_fail(p, at, "non-default positional argument '%s' follows default argument",
                              a->name);
            s->nargs++;
        }
        skip_ws(p);
        if (p->text[p->pos] == ')') {
            p->pos++;
            return true;
        }
        if (!expect_char(p, ','))
            return false;
    }
}

static bool parse_rets(tn_p *p, tn_schema *s, tn_arg *slots, int cap)
{
    s->rets = slots;
    skip_ws(p);
    if (accept(p, "...")) {
        s->is_varret = true;
        return true;
    }
    /* "(" starts a tuple of returns; a tuple *type* as single return is not supported */
    if (p->text[p->pos] == '(') {
        p->pos++;
        if (accept(p, ")"))
            return true;
        for (;;) {
            skip_ws(p);
            int at = p->pos;
            if (s->is_varret)
                return p_fail(p, at, "'...' must be the last return");
            if (accept(p, "...")) {
                s->is_varret = true;
            } else {
                if (s->nrets >= cap)
                    return p_fail(p, at, "internal: too many returns");
                if (!parse_arg(p, &slots[s->nrets], true, false))
                    return false;
                s->nrets++;
            }
            skip_ws(p);
            if (p->text[p->pos] == ')') {
                p->pos++;
                return true;
            }
            if (!expect_char(p, ','))
                return false;
        }
    }
    if (!parse_arg(p, &slots[0], true, false))
        return false;
    s->nrets = 1;
    return true;
}

int tn_schema_parse(const char *text, tn_schema *out, char *err, int errlen)
{
    if (err && errlen > 0)
        err[0] = 0;
    memset(out, 0, sizeof *out);
    if (!text) {
        if (err && errlen > 0)
            snprintf(err, (size_t)errlen, "schema text is NULL");
        return -1;
    }
    size_t len = strlen(text);
    if (len > (1u << 24)) {
        if (err && errlen > 0)
            snprintf(err, (size_t)errlen, "schema text too long");
        return -1;
    }
    /* Upper bounds: every argument/return but the first is preceded by a comma. Every pooled string
     * is a distinct piece of text plus its NUL; alias sets may be copied twice. */
    int commas = 0;
    for (size_t i = 0; i < len; i++)
        commas += text[i] == ',';
    int cap = commas + 2;
    size_t argbytes = sizeof(tn_arg) * (size_t)cap * 2;
    size_t poolbytes = 2 * len + 16;
    char *block = malloc(argbytes + poolbytes);
    if (!block) {
        if (err && errlen > 0)
            snprintf(err, (size_t)errlen, "out of memory parsing schema");
        return -1;
    }
    tn_p p = {.text = text, .pool = block + argbytes, .pool_cap = (int)poolbytes, .err = err,
              .errlen = errlen};
    tn_arg *argslots = (tn_arg *)block;
    tn_arg *retslots = argslots + cap;

    const char *first = parse_ident(&p, "an operator name");
    if (!first)
        goto fail;
    if (accept(&p, "::")) {
        out->ns = first;
        if (!(out->name = parse_ident(&p, "an operator name")))
            goto fail;
    } else {
        out->ns = "";
        out->name = first;
    }
    out->overload = "";
    if (accept(&p, ".")) {
        skip_ws(&p);
        int at = p.pos;
        if (!(out->overload = parse_ident(&p, "an overload name")))
            goto fail;
        if (!strcmp(out->overload, "default")) {
            p_fail(&p, at, "'default' is not a legal overload name for aten operators");
            goto fail;
        }
    }
    if (!parse_args(&p, out, argslots, cap))
        goto fail;
    skip_ws(&p);
    if (!accept(&p, "->")) {
        char b[40];
        p_fail(&p, p.pos, "expected '->' but found %s", found(&p, b, sizeof b));
        goto fail;
    }
    if (!parse_rets(&p, out, retslots, cap))
        goto fail;
    skip_ws(&p);
    if (p.text[p.pos]) {
        char b[40];
        p_fail(&p, p.pos, "expected end of schema but found %s", found(&p, b, sizeof b));
        goto fail;
    }
    out->args = argslots;
    out->rets = retslots;
    return 0;
fail:
    if (!p.failed)
        p_fail(&p, p.pos, "invalid schema");
    free(block);
    memset(out, 0, sizeof *out);
    return -1;
}

void tn_schema_free(tn_schema *s)
{
    if (!s)
        return;
    free(s->args);
    s->args = s->rets = NULL;
    s->nargs = s->nrets = 0;
}

/* ---- formatting (as written) ---- */

typedef struct {
    char *buf;
    int cap, n;
} tn_sb;

static void sb_put(tn_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int room = b->n < b->cap ? b->cap - b->n : 0;
    int k = vsnprintf(room ? b->buf + b->n : NULL, (size_t)room, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->n += k;
}

static void fmt_alias(tn_sb *b, const tn_arg *a)
{
    sb_put(b, "(%s%s", a->alias_before, a->is_write ? "!" : "");
    if (a->alias_after && strcmp(a->alias_after, a->alias_before))
        sb_put(b, " -> %s", a->alias_after);
    sb_put(b, ")");
}

static void fmt_arg(tn_sb *b, const tn_arg *a)
{
    sb_put(b, "%s", tn_type_names[a->type]);
    if (a->alias_before && (a->alias_on_elem || !a->is_list))
        fmt_alias(b, a);
    if (a->is_list) {
        if (a->elem_optional)
            sb_put(b, "?");
        if (a->list_size >= 0)
            sb_put(b, "[%d]", a->list_size);
        else
            sb_put(b, a->nested_list ? "[][]" : "[]");
        if (a->alias_before && !a->alias_on_elem)
            fmt_alias(b, a);
    }
    if (a->optional)
        sb_put(b, "?");
    if (a->name)
        sb_put(b, " %s", a->name);
    if (a->default_text)
        sb_put(b, "=%s", a->default_text);
}

int tn_schema_format(const tn_schema *s, char *buf, int buflen)
{
    tn_sb b = {buf, buflen > 0 ? buflen : 0, 0};
    if (buf && buflen > 0)
        buf[0] = 0;
    if (s->ns && s->ns[0])
        sb_put(&b, "%s::", s->ns);
    sb_put(&b, "%s", s->name ? s->name : "");
    if (s->overload && s->overload[0])
        sb_put(&b, ".%s", s->overload);
    sb_put(&b, "(");
    bool kw = false;
    for (int i = 0; i < s->nargs; i++) {
        if (i)
            sb_put(&b, ", ");
        if (s->args[i].kwarg_only && !kw) {
            kw = true;
            sb_put(&b, "*, ");
        }
        fmt_arg(&b, &s->args[i]);
    }
    if (s->is_vararg)
        sb_put(&b, s->nargs ? ", ..." : "...");
    sb_put(&b, ") -> ");
    if (s->nrets == 1 && !s->is_varret) {
        fmt_arg(&b, &s->rets[0]);
    } else if (s->nrets == 0 && s->is_varret) {
        sb_put(&b, "...");
    } else {
        sb_put(&b, "(");
        for (int i = 0; i < s->nrets; i++) {
            if (i)
                sb_put(&b, ", ");
            fmt_arg(&b, &s->rets[i]);
        }
        if (s->is_varret)
            sb_put(&b, ", ...");
        sb_put(&b, ")");
    }
    return b.n;
}
