#include "sb_squad_synth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"

/* Every word below is a whole token of bert-base-uncased's vocab.txt (checked
 * by tests/test_squad_synth.c when the real vocab is present). Attributes are
 * distinct within a paragraph, so the attribute alone picks the fact. */
static const char *const k_attrs[] = {
    "color", "size", "weight", "height", "age", "price", "name", "city", "country",
    "language", "food", "sport", "animal", "song", "book", "game", "car", "flower", "job",
    "shape", "number", "season", "metal", "tree", "drink", "bird", "fish", "planet", "river",
    "mountain", "instrument"};
static const char *const k_entities[] = {
    "Tom", "Anna", "Paul", "Maria", "John", "Lisa", "Mark", "Sara", "Peter", "Emma", "David",
    "Julia", "James", "Kate", "Robert", "Laura", "Michael", "Alice", "George", "Helen",
    "Frank", "Diana", "Henry", "Grace", "Oscar", "Ruby", "Victor", "Nora", "Simon", "Clara",
    "Adam", "Eva", "Brian", "Fiona", "Carl", "Holly", "Dennis", "Iris", "Edward", "Jane",
    "Felix", "Mia", "Harry", "Nina", "Ivan", "Olga", "Jack", "Rose", "Kevin", "Tina", "Leo",
    "Una", "Max", "Vera", "Nick", "Wendy", "Owen", "Zoe", "Ralph", "Amy", "Sam", "Beth",
    "Ted", "Cora", "Walter", "Dora"};
static const char *const k_values[] = {
    "red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "brown",
    "gray", "silver", "gold", "small", "large", "tiny", "huge", "heavy", "light", "tall",
    "short", "young", "old", "cheap", "expensive", "rome", "paris", "london", "berlin",
    "tokyo", "madrid", "cairo", "sydney", "moscow", "dublin", "vienna", "oslo", "lima",
    "delhi", "seoul", "boston", "chicago", "denver", "dallas", "miami", "seattle", "france",
    "spain", "italy", "china", "japan", "india", "brazil", "egypt", "kenya", "peru", "chile",
    "canada", "mexico", "norway", "sweden", "poland", "greece", "rice", "bread", "cheese",
    "apple", "banana", "soup", "cake", "pizza", "tennis", "golf", "soccer", "hockey", "chess",
    "boxing", "rugby", "cricket", "tiger", "lion", "wolf", "bear", "horse", "eagle", "shark",
    "whale", "rabbit", "snake", "lily", "daisy", "oak", "pine", "maple", "iron", "copper",
    "steel", "zinc", "tin", "circle", "square", "triangle", "star", "heart", "one", "two",
    "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "twenty", "thirty", "forty", "fifty", "hundred", "winter", "summer", "spring", "autumn",
    "doctor", "teacher", "pilot", "farmer", "lawyer", "nurse", "driver", "singer", "painter",
    "writer", "coffee", "tea", "milk", "juice", "water", "wine", "beer", "owl", "crow",
    "parrot", "salmon", "tuna", "mars", "venus", "jupiter", "saturn", "nile", "amazon",
    "thames", "danube", "alps", "andes", "piano", "guitar", "violin", "drum", "flute"};
#define N_ATTRS ((int)(sizeof k_attrs / sizeof *k_attrs))
#define N_ENTS ((int)(sizeof k_entities / sizeof *k_entities))
#define N_VALS ((int)(sizeof k_values / sizeof *k_values))

const char *const *sb_squad_synth_words(void)
{
    enum { N = N_ATTRS + N_ENTS + N_VALS + 8 };
    static const char *all[N + 1];
    static char lower[N_ENTS][16];
    if (!all[0]) {
        int k = 0;
        static const char *const glue[] = {"the", "of", "is", "what", "?", ".", ",", "'"};
        for (int i = 0; i < 8; i++) all[k++] = glue[i];
        for (int i = 0; i < N_ATTRS; i++) all[k++] = k_attrs[i];
        for (int i = 0; i < N_ENTS; i++) {
            size_t j = 0;
            for (; k_entities[i][j] && j < 15; j++)
                lower[i][j] = (char)(k_entities[i][j] | 0x20);
            lower[i][j] = '\0';
            all[k++] = lower[i];
        }
        for (int i = 0; i < N_VALS; i++) all[k++] = k_values[i];
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

enum { FACTS_MIN = 6, FACTS_MAX = 12, QUESTIONS_MIN = 3, QUESTIONS_MAX = 6,
       PARAGRAPHS_PER_ARTICLE = 50 };

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
        for (int i = 0; i < n_facts; i++) {   /* partial Fisher-Yates: distinct attributes */
            int j = i + uniform(&state, N_ATTRS - i);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
            attr[i] = perm[i];
            ent[i] = uniform(&state, N_ENTS);
            val[i] = uniform(&state, N_VALS);
        }
        size_t len = 0;
        for (int i = 0; i < n_facts; i++) {
            int pre = snprintf(ctx + len, sizeof ctx - len, "%sThe %s of %s is ", i ? " " : "",
                               k_attrs[attr[i]], k_entities[ent[i]]);
            val_at[i] = (int)len + pre;
            len += (size_t)pre;
            len += (size_t)snprintf(ctx + len, sizeof ctx - len, "%s.", k_values[val[i]]);
        }
        json_t *para = json_object();
        json_object_set_new(para, "context", json_stringn(ctx, len));
        json_t *qas = json_array();
        json_object_set_new(para, "qas", qas);
        json_array_append_new(paragraphs, para);
        int n_q = QUESTIONS_MIN + uniform(&state, QUESTIONS_MAX - QUESTIONS_MIN + 1);
        int asked[FACTS_MAX];
        for (int i = 0; i < n_facts; i++) asked[i] = i;
        for (int k = 0; k < n_q && made < n_questions; k++) {
            int j = k + uniform(&state, n_facts - k);
            int t = asked[k];
            asked[k] = asked[j];
            asked[j] = t;
            int f = asked[k];
            snprintf(q, sizeof q, "What is the %s of %s?", k_attrs[attr[f]], k_entities[ent[f]]);
            snprintf(id, sizeof id, "synth-%s%llu-%d", dev ? "dev-" : "", (unsigned long long)seed,
                     made);
            json_t *qa = json_object();
            json_object_set_new(qa, "id", json_string(id));
            json_object_set_new(qa, "question", json_string(q));
            json_t *answers = json_array();
            json_t *ans = json_object();
            json_object_set_new(ans, "text", json_string(k_values[val[f]]));
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

int sb_squad_synth_write(const char *path, int32_t n_questions, uint64_t seed, int dev,
                         sb_err *e)
{
    json_t *doc;
    int rc = sb_squad_synth_json(n_questions, seed, dev, &doc, e);
    if (rc) return rc;
    char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!s) return sb_errf(e, SB_EFAIL, "%s: cannot encode JSON", path);
    size_t n = strlen(s);
    s[n] = '\n';   /* overwrite the NUL: written with an explicit length */
    rc = sb_write_file_atomic(path, s, n + 1, e);
    free(s);
    return rc;
}
