#include "sb_squad_synth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"

/* Every word below is a whole token of bert-base-uncased's vocab.txt (checked
 * by tests/test_squad_synth.c when the real vocab is present). Each attribute
 * has its own kind of value (a color for "color", a city for "city"), and the
 * attributes of one paragraph are distinct, so the question's attribute picks
 * exactly one value in the paragraph: a tiny model learns to match the kind.
 * The context never names an attribute, so the question's is the only one in
 * a feature. No word is both a value and a name, nor a value of two kinds. */
typedef struct synth_attr {
    const char *attr;
    const char *const *vals; /* NULL-terminated */
} synth_attr;
#define VALS(...) ((const char *const[]){__VA_ARGS__, NULL})
static const synth_attr k_attrs[] = {
    {"color",
     VALS("red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "brown",
          "gray", "silver", "gold")},
    {"city",
     VALS("rome", "paris", "london", "berlin", "tokyo", "madrid", "cairo", "sydney", "moscow",
          "dublin", "vienna", "oslo", "lima", "delhi", "seoul", "boston", "chicago", "denver",
          "dallas", "miami", "seattle")},
    {"country",
     VALS("france", "spain", "italy", "china", "japan", "india", "brazil", "egypt", "kenya", "peru",
          "chile", "canada", "mexico", "norway", "sweden", "poland", "greece")},
    {"food", VALS("rice", "bread", "cheese", "apple", "banana", "soup", "cake", "pizza")},
    {"sport", VALS("tennis", "golf", "soccer", "hockey", "chess", "boxing", "rugby", "cricket")},
    {"animal", VALS("tiger", "lion", "wolf", "bear", "horse", "rabbit", "snake")},
    {"flower", VALS("lily", "daisy", "orchid", "lotus")},
    {"tree", VALS("oak", "pine", "maple")},
    {"metal", VALS("iron", "copper", "steel", "zinc", "tin")},
    {"shape", VALS("circle", "square", "triangle", "star", "heart")},
    {"number",
     VALS("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve", "twenty", "thirty", "forty", "fifty", "hundred")},
    {"season", VALS("winter", "summer", "spring", "autumn")},
    {"job",
     VALS("doctor", "teacher", "pilot", "farmer", "lawyer", "nurse", "driver", "singer", "painter",
          "writer")},
    {"drink", VALS("coffee", "tea", "milk", "juice", "water", "wine", "beer")},
    {"bird", VALS("eagle", "owl", "crow", "parrot")},
    {"fish", VALS("shark", "whale", "salmon", "tuna")},
    {"planet", VALS("mars", "venus", "jupiter", "saturn")},
    {"river", VALS("nile", "amazon", "thames", "danube")},
    {"mountain", VALS("alps", "andes")},
    {"instrument", VALS("piano", "guitar", "violin", "drum", "flute")}};
#undef VALS
static const char *const k_entities[] = {
    "Tom",   "Anna",  "Paul",  "Maria", "John",   "Lisa",  "Mark",    "Sara",  "Peter",  "Emma",
    "David", "Julia", "James", "Kate",  "Robert", "Laura", "Michael", "Alice", "George", "Helen",
    "Frank", "Diana", "Henry", "Grace", "Oscar",  "Ruby",  "Victor",  "Nora",  "Simon",  "Clara",
    "Adam",  "Eva",   "Brian", "Fiona", "Carl",   "Holly", "Dennis",  "Iris",  "Edward", "Jane",
    "Felix", "Mia",   "Harry", "Nina",  "Ivan",   "Olga",  "Jack",    "Rose",  "Kevin",  "Tina",
    "Leo",   "Una",   "Max",   "Vera",  "Nick",   "Wendy", "Owen",    "Zoe",   "Ralph",  "Amy",
    "Sam",   "Beth",  "Ted",   "Cora",  "Walter", "Dora"};
#define N_ATTRS ((int)(sizeof k_attrs / sizeof *k_attrs))
#define N_ENTS ((int)(sizeof k_entities / sizeof *k_entities))

static int n_vals(int a)
{
    int n = 0;
    while (k_attrs[a].vals[n]) n++;
    return n;
}

const char *const *sb_squad_synth_words(void)
{
    enum { N_GLUE = 6, N_MAX = 512 };
    static const char *all[N_MAX + 1];
    static char lower[N_ENTS][16];
    if (!all[0]) {
        int k = 0;
        static const char *const glue[N_GLUE] = {"which", "does", "like", "likes", "?", "."};
        for (int i = 0; i < N_GLUE; i++) all[k++] = glue[i];
        for (int i = 0; i < N_ATTRS; i++) all[k++] = k_attrs[i].attr;
        for (int i = 0; i < N_ENTS; i++) {
            size_t j = 0;
            for (; k_entities[i][j] && j < 15; j++) lower[i][j] = (char)(k_entities[i][j] | 0x20);
            lower[i][j] = '\0';
            all[k++] = lower[i];
        }
        for (int i = 0; i < N_ATTRS; i++)
            for (int j = 0; k_attrs[i].vals[j] && k < N_MAX; j++) all[k++] = k_attrs[i].vals[j];
        all[k] = NULL;
    }
    return all;
}

/* splitmix64: tiny, fast, and the same on every platform. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int uniform(uint64_t *s, int n) { return (int)(next_u64(s) % (uint64_t)n); }

enum {
    FACTS_MIN = 3,
    FACTS_MAX = 5,
    QUESTIONS_MIN = 2,
    QUESTIONS_MAX = 4,
    PARAGRAPHS_PER_ARTICLE = 50
};

int sb_squad_synth_json(int32_t n_questions, uint64_t seed, int dev, json_t **out, sb_err *e)
{
    *out = NULL;
    if (n_questions < 0) return sb_errf(e, SB_EUSAGE, "negative number of questions");
    uint64_t state = seed * 0x2545F4914F6CDD1Dull + (dev ? 0xD1B54A32D192ED03ull : 0x1234567ull);
    next_u64(&state);
    json_t *doc = json_object();
    json_t *data = json_array();
    json_object_set_new(doc, "data", data);
    json_object_set_new(doc, "version", json_string("1.1"));
    json_t *article = NULL, *paragraphs = NULL;
    int32_t made = 0, n_par = 0;
    char ctx[2048], q[256], id[96], title[64];
    while (made < n_questions) {
        if (n_par % PARAGRAPHS_PER_ARTICLE == 0) {
            article = json_object();
            snprintf(title, sizeof title, "Synthetic_%s%d", dev ? "dev_" : "",
                     n_par / PARAGRAPHS_PER_ARTICLE);
            json_object_set_new(article, "title", json_string(title));
            paragraphs = json_array();
            json_object_set_new(article, "paragraphs", paragraphs);
            json_array_append_new(data, article);
        }
        n_par++;
        int n_facts = FACTS_MIN + uniform(&state, FACTS_MAX - FACTS_MIN + 1);
        int attr[FACTS_MAX], ent[FACTS_MAX], val[FACTS_MAX], val_at[FACTS_MAX];
        int perm[N_ATTRS];
        for (int i = 0; i < N_ATTRS; i++) perm[i] = i;
        for (int i = 0; i < n_facts; i++) { /* partial Fisher-Yates: distinct attributes */
            int j = i + uniform(&state, N_ATTRS - i);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
            attr[i] = perm[i];
            ent[i] = uniform(&state, N_ENTS);
            val[i] = uniform(&state, n_vals(attr[i]));
        }
        size_t len = 0;
        for (int i = 0; i < n_facts; i++) {
            int pre = snprintf(ctx + len, sizeof ctx - len, "%s%s likes ", i ? " " : "",
                               k_entities[ent[i]]);
            val_at[i] = (int)len + pre;
            len += (size_t)pre;
            len += (size_t)snprintf(ctx + len, sizeof ctx - len, "%s.",
                                    k_attrs[attr[i]].vals[val[i]]);
        }
        json_t *para = json_object();
        json_object_set_new(para, "context", json_stringn(ctx, len));
        json_t *qas = json_array();
        json_object_set_new(para, "qas", qas);
        json_array_append_new(paragraphs, para);
        int n_q = QUESTIONS_MIN + uniform(&state, QUESTIONS_MAX - QUESTIONS_MIN + 1);
        if (n_q > n_facts) n_q = n_facts;
        int asked[FACTS_MAX];
        for (int i = 0; i < n_facts; i++) asked[i] = i;
        for (int k = 0; k < n_q && made < n_questions; k++) {
            int j = k + uniform(&state, n_facts - k);
            int t = asked[k];
            asked[k] = asked[j];
            asked[j] = t;
            int f = asked[k];
            snprintf(q, sizeof q, "Which %s does %s like?", k_attrs[attr[f]].attr,
                     k_entities[ent[f]]);
            snprintf(id, sizeof id, "synth-%s%llu-%d", dev ? "dev-" : "", (unsigned long long)seed,
                     made);
            json_t *qa = json_object();
            json_object_set_new(qa, "id", json_string(id));
            json_object_set_new(qa, "question", json_string(q));
            json_t *answers = json_array();
            json_t *ans = json_object();
            json_object_set_new(ans, "text", json_string(k_attrs[attr[f]].vals[val[f]]));
            json_object_set_new(ans, "answer_start", json_integer(val_at[f]));
            json_array_append_new(answers, ans);
            json_object_set_new(qa, "answers", answers);
            json_array_append_new(qas, qa);
            made++;
        }
    }
    *out = doc;
    return SB_OK;
}

int sb_squad_synth(int32_t n_questions, uint64_t seed, int dev, sb_squad_set *set, sb_err *e)
{
    json_t *doc;
    int rc = sb_squad_synth_json(n_questions, seed, dev, &doc, e);
    if (rc) return rc;
    rc = sb_squad_from_json(doc, "synthetic set", set, e);
    json_decref(doc);
    return rc;
}

int sb_squad_synth_write(const char *path, int32_t n_questions, uint64_t seed, int dev, sb_err *e)
{
    json_t *doc;
    int rc = sb_squad_synth_json(n_questions, seed, dev, &doc, e);
    if (rc) return rc;
    char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!s) return sb_errf(e, SB_EFAIL, "%s: cannot encode JSON", path);
    size_t n = strlen(s);
    s[n] = '\n'; /* overwrite the NUL: written with an explicit length */
    rc = sb_write_file_atomic(path, s, n + 1, e);
    free(s);
    return rc;
}

int sb_vocab_builtin_synth(sb_vocab *v, sb_err *e)
{
    static const char *const specials[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    const char *const *words = sb_squad_synth_words();
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) return sb_errf(e, SB_EFAIL, "out of memory");
#define SB_PUT(str)                                           \
    do {                                                      \
        size_t l_ = strlen(str);                              \
        if (n + l_ + 4 > cap) {                               \
            cap = (n + l_ + 4) * 2;                           \
            char *nb_ = realloc(buf, cap);                    \
            if (!nb_) {                                       \
                free(buf);                                    \
                return sb_errf(e, SB_EFAIL, "out of memory"); \
            }                                                 \
            buf = nb_;                                        \
        }                                                     \
        memcpy(buf + n, str, l_);                             \
        n += l_;                                              \
        buf[n++] = '\n';                                      \
    } while (0)
    for (size_t i = 0; i < 5; i++) SB_PUT(specials[i]);
    /* Single characters and their continuations: every ASCII word has a
     * WordPiece cover, so the tiny model never sees [UNK] for plain text. */
    for (int c = 33; c < 127; c++) {
        char s[4] = {(char)c, 0, 0, 0};
        if (c >= 'A' && c <= 'Z') continue;
        SB_PUT(s);
    }
    for (int c = 33; c < 127; c++) {
        int alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
        if (!alnum) continue;
        char s[4] = {'#', '#', (char)c, 0};
        SB_PUT(s);
    }
    for (size_t i = 0; words[i]; i++) {
        if (strlen(words[i]) == 1) continue; /* already a single character */
        SB_PUT(words[i]);
    }
#undef SB_PUT
    int rc = sb_vocab_parse(buf, n, "built-in synthetic vocab", v, e);
    free(buf);
    return rc;
}
