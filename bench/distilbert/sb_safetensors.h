/* sb_safetensors: the safetensors format (8-byte little-endian header length,
 * a JSON header name -> {dtype, shape, data_offsets}, optional "__metadata__",
 * then raw little-endian data). Reading maps the file (mmap) and checks it
 * the way the reference implementation does: header length in bounds, JSON
 * object, known dtype, shape x dtype size == data_offsets span, offsets in
 * bounds, no overlaps and no holes. F32, F16 and BF16 read into f32. Writing
 * produces F32 tensors with {"format": "pt"} metadata (what transformers'
 * from_pretrained requires), atomically. */
#ifndef SB_SAFETENSORS_H
#define SB_SAFETENSORS_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"

enum { SB_ST_MAX_DIMS = 8 };

typedef enum sb_st_dtype {
    SB_ST_BOOL,
    SB_ST_U8,
    SB_ST_I8,
    SB_ST_I16,
    SB_ST_U16,
    SB_ST_F16,
    SB_ST_BF16,
    SB_ST_I32,
    SB_ST_U32,
    SB_ST_F32,
    SB_ST_F64,
    SB_ST_I64,
    SB_ST_U64,
    SB_ST_F8_E4M3,
    SB_ST_F8_E5M2,
} sb_st_dtype;

typedef struct sb_st_tensor {
    char *name;
    sb_st_dtype dtype;
    int ndim;
    int64_t shape[SB_ST_MAX_DIMS];
    int64_t numel;
    uint64_t begin, end; /* byte offsets into the data section */
} sb_st_tensor;

typedef struct sb_safetensors {
    char path[512];
    const uint8_t *base; /* whole file (mapped or borrowed) */
    size_t size;
    const uint8_t *data; /* start of the data section */
    size_t data_size;
    int mapped;
    int32_t n;
    sb_st_tensor *tensors; /* in header order */
} sb_safetensors;

/* Maps and validates a file. SB_EUSAGE naming the file and the tensor/field. */
int sb_safetensors_open(const char *path, sb_safetensors *st, sb_err *e);
/* Validates a buffer the caller keeps alive while st is used. */
int sb_safetensors_parse(const void *buf, size_t len, const char *name, sb_safetensors *st,
                         sb_err *e);
void sb_safetensors_close(sb_safetensors *st);

const sb_st_tensor *sb_safetensors_find(const sb_safetensors *st, const char *name);
const char *sb_st_dtype_name(sb_st_dtype d);
/* Converts a F32/F16/BF16 tensor into out[numel]; other dtypes SB_EUSAGE. */
int sb_safetensors_read_f32(const sb_safetensors *st, const sb_st_tensor *t, float *out, sb_err *e);

typedef struct sb_st_write_tensor {
    const char *name;
    int ndim;
    int64_t shape[SB_ST_MAX_DIMS];
    const float *data; /* numel floats */
} sb_st_write_tensor;
/* Writes F32 tensors in the given order (atomic: temp file + rename). */
int sb_safetensors_write(const char *path, const sb_st_write_tensor *t, int n, sb_err *e);

#endif
