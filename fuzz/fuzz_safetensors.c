/* libFuzzer: the safetensors reader (and config.json parser) on arbitrary
 * bytes. When a file is accepted, every float tensor is converted, which
 * must stay inside the buffer (ASan checks). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_hf.h"
#include "sb_safetensors.h"

/* libFuzzer's entry point (it declares none). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_err e = {0};
    if (size > 0 && data[0] == '{') { /* looks like config.json */
        sb_distilbert_config c;
        sb_distilbert_config_parse((const char *)data, size, "config.json", &c, &e);
    }
    /* A private copy, so ASan sees reads past the end of the file. */
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    sb_safetensors st;
    if (sb_safetensors_parse(copy, size, "fuzz.safetensors", &st, &e) == SB_OK) {
        for (int32_t i = 0; i < st.n; i++) {
            const sb_st_tensor *t = &st.tensors[i];
            if (t->begin > t->end || t->end > st.data_size) abort();
            if (t->dtype != SB_ST_F32 && t->dtype != SB_ST_F16 && t->dtype != SB_ST_BF16) continue;
            float *out = malloc(sizeof(float) * (size_t)(t->numel ? t->numel : 1));
            if (sb_safetensors_read_f32(&st, t, out, &e) != SB_OK) abort();
            free(out);
            if (sb_safetensors_find(&st, t->name) == NULL) abort();
        }
        sb_safetensors_close(&st);
    } else if (strncmp(e.msg, "fuzz.safetensors: ", 18)) {
        abort();
    }
    free(copy);
    return 0;
}
