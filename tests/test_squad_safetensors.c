/* safetensors: write/read round trip, F16/BF16 conversion, every kind of
 * bad header refused with the file and the tensor named; the HF model
 * directory (config.json + model.safetensors) round trip, and refusals of a
 * missing tensor or a wrong shape. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_hf.h"
#include "sb_safetensors.h"
#include "testutil.h"

/* A file image: 8-byte length, header, data. */
static size_t image(uint8_t *buf, const char *hdr, const void *data, size_t dlen)
{
    uint64_t h = strlen(hdr);
    for (int i = 0; i < 8; i++) buf[i] = (uint8_t)(h >> (8 * i));
    memcpy(buf + 8, hdr, h);
    if (dlen) memcpy(buf + 8 + h, data, dlen);
    return 8 + h + dlen;
}

static void expect_bad(const char *hdr, size_t dlen, const char *want)
{
    static uint8_t buf[4096];
    uint8_t data[256] = {0};
    size_t n = image(buf, hdr, data, dlen);
    sb_safetensors st;
    sb_err e = {0};
    int rc = sb_safetensors_parse(buf, n, "m.safetensors", &st, &e);
    CHECK_EQ_INT(rc, SB_EUSAGE);
    if (rc != SB_EUSAGE || !strstr(e.msg, want) || strncmp(e.msg, "m.safetensors: ", 15)) {
        g_test_failures++;
        fprintf(stderr, "header %s: message \"%s\" lacks \"%s\"\n", hdr, rc ? e.msg : "(accepted)",
                want);
    }
    if (rc == SB_OK) sb_safetensors_close(&st);
}

static void test_parse(void)
{
    /* F16 1.0, -2.0, 65504, smallest subnormal; BF16 1.0, -0.5 */
    uint8_t data[12] = {0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B, 0x01, 0x00, 0x80, 0x3F, 0x00, 0xBF};
    uint8_t buf[512];
    size_t n = image(
        buf,
        "{\"__metadata__\":{\"format\":\"pt\"},\"h\":{\"dtype\":\"F16\",\"shape\":[2,2],"
        "\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]}}",
        data, sizeof data);
    sb_safetensors st;
    sb_err e = {0};
    CHECK_EQ_INT(sb_safetensors_parse(buf, n, "m", &st, &e), SB_OK);
    CHECK_EQ_INT(st.n, 2);
    const sb_st_tensor *h = sb_safetensors_find(&st, "h"), *b = sb_safetensors_find(&st, "b");
    CHECK(h && b && !sb_safetensors_find(&st, "__metadata__"));
    float out[4];
    if (h) {
        CHECK_EQ_INT(h->ndim, 2);
        CHECK_EQ_INT(h->numel, 4);
        CHECK_EQ_INT(sb_safetensors_read_f32(&st, h, out, &e), SB_OK);
        CHECK(out[0] == 1.0f && out[1] == -2.0f && out[2] == 65504.0f);
        CHECK(out[3] > 5.96e-8f && out[3] < 5.97e-8f);
    }
    if (b) {
        CHECK_EQ_INT(sb_safetensors_read_f32(&st, b, out, &e), SB_OK);
        CHECK(out[0] == 1.0f && out[1] == -0.5f);
    }
    sb_safetensors_close(&st);
    /* An empty file of tensors is valid. */
    n = image(buf, "{}", NULL, 0);
    CHECK_EQ_INT(sb_safetensors_parse(buf, n, "m", &st, &e), SB_OK);
    sb_safetensors_close(&st);

    CHECK_EQ_INT(sb_safetensors_parse(buf, 5, "m.safetensors", &st, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "too short") != NULL);
    uint8_t lie[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
    CHECK_EQ_INT(sb_safetensors_parse(lie, 10, "m.safetensors", &st, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "runs past the end") != NULL);
    uint8_t huge[16] = {0, 0, 0, 0, 0, 0, 0, 0x80, '{', '}'};
    CHECK_EQ_INT(sb_safetensors_parse(huge, 10, "m.safetensors", &st, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "too large") != NULL);
    expect_bad("[1,2]", 0, "not a JSON object");
    expect_bad("{\"a\":", 0, "header JSON");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"a\":{}}", 4,
               "header JSON");
    expect_bad("{\"a\":{\"dtype\":\"Q4\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
               "\"a\": unknown dtype");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4,
               "\"a\": 4 bytes");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,8]}}", 4,
               "past the data");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 4,
               "end 0 < begin 4");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, "shape[0]");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "data_offsets");
    expect_bad("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "dtype");
    expect_bad("{\"a\":[]}", 4, "\"a\": not an object");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[2,6]}}",
               8, "overlaps");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8,
               "unused bytes before tensor \"a\"");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8,
               "bytes after the last tensor");
    expect_bad("{\"__metadata__\":{\"format\":1}}", 0, "__metadata__.format");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],\"data_"
               "offsets\":[0,4]}}",
               4, "overflows");
    /* I32 parses but is not read as float. */
    n = image(buf, "{\"i\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[0,4]}}", data, 4);
    CHECK_EQ_INT(sb_safetensors_parse(buf, n, "m", &st, &e), SB_OK);
    if (st.n == 1) {
        CHECK_EQ_INT(st.tensors[0].numel, 1);
        CHECK_EQ_INT(sb_safetensors_read_f32(&st, &st.tensors[0], out, &e), SB_EUSAGE);
        CHECK(strstr(e.msg, "I32") != NULL);
    }
    sb_safetensors_close(&st);
}

static void test_file_roundtrip(void)
{
    char path[] = "/tmp/sb_st_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    float a[6] = {1, 2, 3, 4, 5, 6}, b[1] = {-7.25f};
    sb_st_write_tensor t[2] = {{"w", 2, {2, 3}, a}, {"bias", 1, {1}, b}};
    sb_err e = {0};
    CHECK_EQ_INT(sb_safetensors_write(path, t, 2, &e), SB_OK);
    sb_safetensors st;
    CHECK_EQ_INT(sb_safetensors_open(path, &st, &e), SB_OK);
    CHECK_EQ_INT(st.n, 2);
    CHECK(((size_t)(st.data - st.base)) % 8 == 0); /* header padded to 8 */
    const sb_st_tensor *w = sb_safetensors_find(&st, "w");
    float out[6] = {0};
    CHECK(w && w->shape[0] == 2 && w->shape[1] == 3 && w->dtype == SB_ST_F32);
    if (w) CHECK_EQ_INT(sb_safetensors_read_f32(&st, w, out, &e), SB_OK);
    CHECK(!memcmp(out, a, sizeof a));
    sb_safetensors_close(&st);
    /* A truncated copy is refused, naming the file. */
    FILE *f = fopen(path, "r+b");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    CHECK_EQ_INT(truncate(path, size - 4), 0);
    CHECK_EQ_INT(sb_safetensors_open(path, &st, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, path) != NULL);
    unlink(path);
    CHECK_EQ_INT(sb_safetensors_open(path, &st, &e), SB_EUSAGE);
    sb_st_write_tensor dup[2] = {{"w", 1, {1}, b}, {"w", 1, {1}, b}};
    CHECK_EQ_INT(sb_safetensors_write(path, dup, 2, &e), SB_EUSAGE);
}

static void test_hf_dir(void)
{
    sb_distilbert_config c;
    sb_distilbert_config_default(&c);
    sb_hf_tensor_spec *specs;
    int n = sb_hf_expected_tensors(&c, &specs);
    CHECK_EQ_INT(n, 6 + 16 * 6);
    CHECK(!strcmp(specs[0].name, "distilbert.embeddings.word_embeddings.weight") &&
          specs[0].shape[0] == 30522 && specs[0].shape[1] == 768);
    CHECK(!strcmp(specs[1].name, "distilbert.embeddings.position_embeddings.weight") &&
          specs[1].shape[0] == 512);
    CHECK(!strcmp(specs[4].name, "distilbert.transformer.layer.0.attention.q_lin.weight"));
    CHECK(!strcmp(specs[14].name, "distilbert.transformer.layer.0.ffn.lin1.weight") &&
          specs[14].shape[0] == 3072 && specs[14].shape[1] == 768);
    CHECK(!strcmp(specs[16].name, "distilbert.transformer.layer.0.ffn.lin2.weight") &&
          specs[16].shape[0] == 768 && specs[16].shape[1] == 3072);
    CHECK(!strcmp(specs[n - 2].name, "qa_outputs.weight") && specs[n - 2].shape[0] == 2);
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += specs[i].numel;
    CHECK_EQ_INT(total, 66364418); /* DistilBertForQuestionAnswering's parameter count */
    free(specs);

    /* A tiny model: write, read back, compare. */
    c.vocab_size = 11;
    c.dim = 4;
    c.n_layers = 2;
    c.n_heads = 2;
    c.hidden_dim = 8;
    c.max_position_embeddings = 16;
    c.dropout = 0.25;
    n = sb_hf_expected_tensors(&c, &specs);
    float **data = calloc((size_t)n, sizeof *data);
    for (int i = 0; i < n; i++) {
        data[i] = malloc(sizeof(float) * (size_t)specs[i].numel);
        for (int64_t k = 0; k < specs[i].numel; k++) data[i][k] = (float)(i * 1000 + k) * 0.5f;
    }
    char dir[] = "/tmp/sb_hf_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    sb_err e = {0};
    CHECK_EQ_INT(sb_hf_write_dir(dir, &c, (const float *const *)data, &e), SB_OK);
    sb_hf_model m;
    CHECK_EQ_INT(sb_hf_read_dir(dir, &m, &e), SB_OK);
    CHECK_EQ_INT(m.n, n);
    CHECK_EQ_INT(m.has_qa_head, 1);
    CHECK_EQ_INT(m.cfg.dim, 4);
    CHECK_EQ_INT(m.cfg.hidden_dim, 8);
    CHECK(m.cfg.dropout == 0.25);
    CHECK(!strcmp(m.cfg.activation, "gelu"));
    int same = 1;
    for (int i = 0; i < n && m.data; i++)
        same = same && m.data[i] &&
            !memcmp(m.data[i], data[i], sizeof(float) * (size_t)specs[i].numel);
    CHECK(same);
    sb_hf_model_free(&m);

    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    /* A base checkpoint (no qa_outputs; DistilBertModel names without the
     * "distilbert." prefix; an extra MLM tensor) reads with has_qa_head 0. */
    sb_st_write_tensor *t = calloc((size_t)n, sizeof *t);
    for (int i = 0; i < n - 2; i++) {
        t[i].name = specs[i].name + 11;
        t[i].ndim = specs[i].ndim;
        t[i].shape[0] = specs[i].shape[0];
        t[i].shape[1] = specs[i].shape[1];
        t[i].data = data[i];
    }
    t[n - 2] = (sb_st_write_tensor){"vocab_projector.bias", 1, {11}, data[0]};
    CHECK_EQ_INT(sb_safetensors_write(path, t, n - 1, &e), SB_OK);
    CHECK_EQ_INT(sb_hf_read_dir(dir, &m, &e), SB_OK);
    CHECK_EQ_INT(m.has_qa_head, 0);
    CHECK(m.data && m.data[n - 1] == NULL && m.data[0] && m.data[0][3] == data[0][3]);
    sb_hf_model_free(&m);
    /* Missing tensor: named. */
    t[5].name = "embeddings.nothing";
    CHECK_EQ_INT(sb_safetensors_write(path, t, n - 2, &e), SB_OK);
    CHECK_EQ_INT(sb_hf_read_dir(dir, &m, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "missing tensor \"distilbert.transformer.layer.0.attention.q_lin.bias\"") !=
          NULL);
    t[5].name = specs[5].name;
    /* Wrong shape: named, with both shapes. */
    t[0].shape[0] = 12;
    float *big = calloc(12 * 4, sizeof(float));
    t[0].data = big;
    CHECK_EQ_INT(sb_safetensors_write(path, t, n - 2, &e), SB_OK);
    CHECK_EQ_INT(sb_hf_read_dir(dir, &m, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "word_embeddings.weight\" has shape [12,4], config.json implies [11,4]") !=
          NULL);
    free(big);
    /* One qa tensor without the other. */
    t[0].shape[0] = 11;
    t[0].data = data[0];
    t[n - 2] = (sb_st_write_tensor){"qa_outputs.weight", 2, {2, 4}, data[n - 2]};
    CHECK_EQ_INT(sb_safetensors_write(path, t, n - 1, &e), SB_OK);
    CHECK_EQ_INT(sb_hf_read_dir(dir, &m, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "qa_outputs.bias") != NULL);
    free(t);

    /* config.json: defaults for absent keys, type and range errors. */
    sb_distilbert_config r;
    const char *ok = "{\"model_type\":\"distilbert\",\"n_layers\":3,\"sinusoidal_pos_embds\":true}";
    CHECK_EQ_INT(sb_distilbert_config_parse(ok, strlen(ok), "config.json", &r, &e), SB_OK);
    CHECK(r.n_layers == 3 && r.dim == 768 && r.sinusoidal_pos_embds == 1 && r.vocab_size == 30522);
    const char *bad[][2] = {{"{\"dim\":\"768\"}", "\"dim\" is not an integer"},
                            {"{\"dim\":770}", "not a multiple of n_heads"},
                            {"{\"model_type\":\"bert\"}", "model_type"},
                            {"{\"activation\":\"tanh\"}", "activation"},
                            {"{\"dropout\":1.5}", "dropout"},
                            {"{\"n_layers\":0}", "n_layers"},
                            {"[", "config.json: line"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ_INT(
            sb_distilbert_config_parse(bad[i][0], strlen(bad[i][0]), "config.json", &r, &e),
            SB_EUSAGE);
        if (!strstr(e.msg, bad[i][1])) {
            g_test_failures++;
            fprintf(stderr, "config %s: \"%s\" lacks \"%s\"\n", bad[i][0], e.msg, bad[i][1]);
        }
    }
    /* The written config carries what transformers needs. */
    char *text = NULL;
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "rb");
    if (f) {
        text = calloc(1, 65536);
        size_t got = fread(text, 1, 65535, f);
        (void)got;
        fclose(f);
    }
    CHECK(text && strstr(text, "\"DistilBertForQuestionAnswering\"") &&
          strstr(text, "\"model_type\": \"distilbert\""));
    free(text);
    unlink(path);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    unlink(path);
    rmdir(dir);
    for (int i = 0; i < n; i++) free(data[i]);
    free(data);
    free(specs);
}

int main(void)
{
    test_parse();
    test_file_roundtrip();
    test_hf_dir();
    return test_report("test_squad_safetensors");
}
