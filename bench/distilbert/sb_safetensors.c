#include "sb_safetensors.h"
#include "sb_io.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_io.h"

/* The reference implementation refuses headers above 100 MB. */
#define SB_ST_MAX_HEADER (100u * 1000u * 1000u)

static const struct {
    const char *name;
    int size;
} k_dtypes[] = {
    [SB_ST_BOOL] = {"BOOL", 1}, [SB_ST_U8] = {"U8", 1},           [SB_ST_I8] = {"I8", 1},
    [SB_ST_I16] = {"I16", 2},   [SB_ST_U16] = {"U16", 2},         [SB_ST_F16] = {"F16", 2},
    [SB_ST_BF16] = {"BF16", 2}, [SB_ST_I32] = {"I32", 4},         [SB_ST_U32] = {"U32", 4},
    [SB_ST_F32] = {"F32", 4},   [SB_ST_F64] = {"F64", 8},         [SB_ST_I64] = {"I64", 8},
    [SB_ST_U64] = {"U64", 8},   [SB_ST_F8_E4M3] = {"F8_E4M3", 1}, [SB_ST_F8_E5M2] = {"F8_E5M2", 1},
};
#define N_DTYPES ((int)(sizeof k_dtypes / sizeof *k_dtypes))

const char *sb_st_dtype_name(sb_st_dtype d)
{
    return (int)d >= 0 && (int)d < N_DTYPES ? k_dtypes[d].name : "?";
}

void sb_safetensors_close(sb_safetensors *st)
{
    if (!st) return;
    for (int32_t i = 0; i < st->n; i++) free(st->tensors[i].name);
    free(st->tensors);
    if (st->mapped && st->base) munmap((void *)st->base, st->size);
    memset(st, 0, sizeof *st);
}

static int cmp_begin(const void *a, const void *b)
{
    const sb_st_tensor *x = *(const sb_st_tensor *const *)a, *y = *(const sb_st_tensor *const *)b;
    return x->begin < y->begin ? -1
        : x->begin > y->begin  ? 1
                               : (x->end > y->end) - (x->end < y->end);
}

static int parse_tensor(const char *name, const char *key, const json_t *val, sb_st_tensor *t,
                        size_t data_size, sb_err *e)
{
    if (!json_is_object(val))
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": not an object", name, key);
    const json_t *jd = json_object_get(val, "dtype"), *js = json_object_get(val, "shape"),
                 *jo = json_object_get(val, "data_offsets");
    if (!json_is_string(jd))
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": missing or bad \"dtype\"", name, key);
    int d = -1;
    for (int i = 0; i < N_DTYPES; i++)
        if (!strcmp(json_string_value(jd), k_dtypes[i].name)) d = i;
    if (d < 0)
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": unknown dtype \"%.32s\"", name, key,
                       json_string_value(jd));
    t->dtype = (sb_st_dtype)d;
    if (!json_is_array(js))
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": missing or bad \"shape\"", name, key);
    if (json_array_size(js) > SB_ST_MAX_DIMS)
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": %zu dimensions (at most %d)", name, key,
                       json_array_size(js), SB_ST_MAX_DIMS);
    t->ndim = (int)json_array_size(js);
    uint64_t numel = 1;
    for (int i = 0; i < t->ndim; i++) {
        const json_t *x = json_array_get(js, (size_t)i);
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": shape[%d] is not a size", name, key,
                           i);
        uint64_t dim = (uint64_t)json_integer_value(x);
        t->shape[i] = (int64_t)dim;
        if (dim && numel > (UINT64_MAX / 16) / dim)
            return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": shape overflows", name, key);
        numel *= dim;
    }
    t->numel = (int64_t)numel;
    if (!json_is_array(jo) || json_array_size(jo) != 2 || !json_is_integer(json_array_get(jo, 0)) ||
        !json_is_integer(json_array_get(jo, 1)) || json_integer_value(json_array_get(jo, 0)) < 0 ||
        json_integer_value(json_array_get(jo, 1)) < 0)
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": \"data_offsets\" must be [begin, end]",
                       name, key);
    t->begin = (uint64_t)json_integer_value(json_array_get(jo, 0));
    t->end = (uint64_t)json_integer_value(json_array_get(jo, 1));
    if (t->end < t->begin)
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": data_offsets end %llu < begin %llu", name,
                       key, (unsigned long long)t->end, (unsigned long long)t->begin);
    if (t->end > data_size)
        return sb_errf(e, SB_EUSAGE,
                       "%s: tensor \"%s\": data_offsets end %llu is past the data (%zu bytes)",
                       name, key, (unsigned long long)t->end, data_size);
    uint64_t want = numel * (uint64_t)k_dtypes[d].size;
    if (t->end - t->begin != want)
        return sb_errf(e, SB_EUSAGE,
                       "%s: tensor \"%s\": %llu bytes for shape and dtype %s need %llu", name, key,
                       (unsigned long long)(t->end - t->begin), k_dtypes[d].name,
                       (unsigned long long)want);
    return SB_OK;
}

int sb_safetensors_parse(const void *buf, size_t len, const char *name, sb_safetensors *st,
                         sb_err *e)
{
    memset(st, 0, sizeof *st);
    snprintf(st->path, sizeof st->path, "%s", name);
    const uint8_t *b = buf;
    if (len < 8) return sb_errf(e, SB_EUSAGE, "%s: %zu bytes: too short for a header", name, len);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = (hlen << 8) | b[i];
    if (hlen > SB_ST_MAX_HEADER)
        return sb_errf(e, SB_EUSAGE, "%s: header length %llu is too large", name,
                       (unsigned long long)hlen);
    if (hlen > len - 8)
        return sb_errf(e, SB_EUSAGE,
                       "%s: header length %llu runs past the end of the file (%zu bytes)", name,
                       (unsigned long long)hlen, len);
    if (hlen < 2 || b[8] != '{')
        return sb_errf(e, SB_EUSAGE, "%s: header is not a JSON object", name);
    json_error_t jerr;
    json_t *hdr = json_loadb((const char *)b + 8, (size_t)hlen, JSON_REJECT_DUPLICATES, &jerr);
    if (!hdr)
        return sb_errf(e, SB_EUSAGE, "%s: header JSON at byte %d: %s", name, 8 + jerr.position,
                       jerr.text);
    if (!json_is_object(hdr)) {
        json_decref(hdr);
        return sb_errf(e, SB_EUSAGE, "%s: header is not a JSON object", name);
    }
    st->base = b;
    st->size = len;
    st->data = b + 8 + hlen;
    st->data_size = len - 8 - (size_t)hlen;
    size_t cap = json_object_size(hdr);
    st->tensors = calloc(cap ? cap : 1, sizeof *st->tensors);
    sb_st_tensor **order = calloc(cap ? cap : 1, sizeof *order);
    int rc = SB_OK;
    if (!st->tensors || !order) rc = sb_errf(e, SB_EFAIL, "out of memory");
    const char *key;
    json_t *val;
    json_object_foreach(hdr, key, val)
    {
        if (rc) break;
        if (!strcmp(key, "__metadata__")) {
            const char *mk;
            json_t *mv;
            if (!json_is_object(val)) {
                rc = sb_errf(e, SB_EUSAGE, "%s: __metadata__ is not an object", name);
                break;
            }
            json_object_foreach(val, mk, mv)
            {
                if (!json_is_string(mv)) {
                    rc = sb_errf(e, SB_EUSAGE, "%s: __metadata__.%s is not a string", name, mk);
                    break;
                }
            }
            continue;
        }
        sb_st_tensor *t = &st->tensors[st->n];
        rc = parse_tensor(name, key, val, t, st->data_size, e);
        if (rc) break;
        if (!(t->name = strdup(key))) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        order[st->n] = t;
        st->n++;
    }
    json_decref(hdr);
    if (!rc && st->n > 0) {
        /* Tensors must tile the data section exactly: no overlap, no hole. */
        qsort(order, (size_t)st->n, sizeof *order, cmp_begin);
        uint64_t at = 0;
        for (int32_t i = 0; i < st->n && !rc; i++) {
            if (order[i]->begin < at)
                rc = sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\" overlaps tensor \"%s\"", name,
                             order[i]->name, order[i - 1]->name);
            else if (order[i]->begin > at)
                rc = sb_errf(e, SB_EUSAGE, "%s: %llu unused bytes before tensor \"%s\"", name,
                             (unsigned long long)(order[i]->begin - at), order[i]->name);
            at = order[i]->end;
        }
        if (!rc && at != st->data_size)
            rc = sb_errf(e, SB_EUSAGE, "%s: %llu bytes after the last tensor", name,
                         (unsigned long long)(st->data_size - at));
    } else if (!rc && st->data_size != 0) {
        rc = sb_errf(e, SB_EUSAGE, "%s: data but no tensors", name);
    }
    free(order);
    if (rc) {
        st->base = NULL;
        sb_safetensors_close(st);
    }
    return rc;
}

int sb_safetensors_open(const char *path, sb_safetensors *st, sb_err *e)
{
    memset(st, 0, sizeof *st);
    int fd, orc = sb_open_regular(path, &fd, e);
    if (orc) return orc;
    struct stat sbuf;
    if (fstat(fd, &sbuf) != 0) {
        int saved = errno;
        close(fd);
        return sb_errf(e, SB_EUSAGE, "%s: cannot open: %s", path, strerror(saved));
    }
    size_t size = (size_t)sbuf.st_size;
    if (size < 8) {
        close(fd);
        return sb_errf(e, SB_EUSAGE, "%s: %zu bytes: too short for a header", path, size);
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return sb_errf(e, SB_EFAIL, "%s: cannot map: %s", path, strerror(errno));
    int rc = sb_safetensors_parse(map, size, path, st, e);
    if (rc) {
        munmap(map, size);
        return rc;
    }
    st->mapped = 1;
    return SB_OK;
}

const sb_st_tensor *sb_safetensors_find(const sb_safetensors *st, const char *name)
{
    for (int32_t i = 0; i < st->n; i++)
        if (!strcmp(st->tensors[i].name, name)) return &st->tensors[i];
    return NULL;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: renormalise */
            int sh = 0;
            while (!(man & 0x400)) {
                man <<= 1;
                sh++;
            }
            man &= 0x3FF;
            bits = sign | ((uint32_t)(127 - 15 + 1 - sh) << 23) | (man << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7F800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

int sb_safetensors_read_f32(const sb_safetensors *st, const sb_st_tensor *t, float *out, sb_err *e)
{
    const uint8_t *p = st->data + t->begin;
    switch (t->dtype) {
    case SB_ST_F32:
        for (int64_t i = 0; i < t->numel; i++) { /* little-endian on disk and here (x86-64) */
            uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
            memcpy(&out[i], &u, 4);
        }
        return SB_OK;
    case SB_ST_BF16:
        for (int64_t i = 0; i < t->numel; i++) {
            uint32_t u = ((uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8) << 16;
            memcpy(&out[i], &u, 4);
        }
        return SB_OK;
    case SB_ST_F16:
        for (int64_t i = 0; i < t->numel; i++)
            out[i] = half_to_float((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
        return SB_OK;
    default:
        return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": dtype %s cannot be read as float",
                       st->path, t->name, sb_st_dtype_name(t->dtype));
    }
}

int sb_safetensors_write(const char *path, const sb_st_write_tensor *t, int n, sb_err *e)
{
    json_t *hdr = json_object();
    json_t *meta = json_object();
    json_object_set_new(meta, "format", json_string("pt"));
    json_object_set_new(hdr, "__metadata__", meta);
    uint64_t at = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].ndim < 0 || t[i].ndim > SB_ST_MAX_DIMS) {
            json_decref(hdr);
            return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\": bad rank %d", path, t[i].name,
                           t[i].ndim);
        }
        if (json_object_get(hdr, t[i].name)) {
            json_decref(hdr);
            return sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\" given twice", path, t[i].name);
        }
        uint64_t numel = 1;
        json_t *shape = json_array();
        for (int d = 0; d < t[i].ndim; d++) {
            numel *= (uint64_t)t[i].shape[d];
            json_array_append_new(shape, json_integer(t[i].shape[d]));
        }
        json_t *o = json_object();
        json_object_set_new(o, "dtype", json_string("F32"));
        json_object_set_new(o, "shape", shape);
        json_t *off = json_array();
        json_array_append_new(off, json_integer((json_int_t)at));
        at += numel * 4;
        json_array_append_new(off, json_integer((json_int_t)at));
        json_object_set_new(o, "data_offsets", off);
        json_object_set_new(hdr, t[i].name, o);
    }
    char *h = json_dumps(hdr, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(hdr);
    if (!h) return sb_errf(e, SB_EFAIL, "%s: cannot encode header", path);
    size_t hl = strlen(h), padded = (hl + 7) & ~(size_t)7; /* data 8-byte aligned, as upstream */
    size_t total = 8 + padded + (size_t)at;
    uint8_t *buf = malloc(total);
    if (!buf) {
        free(h);
        return sb_errf(e, SB_EFAIL, "%s: out of memory (%zu bytes)", path, total);
    }
    for (int i = 0; i < 8; i++) buf[i] = (uint8_t)((uint64_t)padded >> (8 * i));
    memcpy(buf + 8, h, hl);
    memset(buf + 8 + hl, ' ', padded - hl);
    free(h);
    uint8_t *d = buf + 8 + padded;
    for (int i = 0; i < n; i++) {
        size_t numel = 1;
        for (int k = 0; k < t[i].ndim; k++) numel *= (size_t)t[i].shape[k];
        memcpy(d, t[i].data, numel * 4);
        d += numel * 4;
    }
    int rc = sb_write_file_atomic(path, buf, total, e);
    free(buf);
    return rc;
}
