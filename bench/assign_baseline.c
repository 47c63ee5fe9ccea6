/* Plain C baseline for bench/assign.sh: GrowthBook hash v2 + bucket choice, the same work as
 * Assignment's kernel (FNV-1a 32 over UTF-16 code units of seed + id, decimal string of that,
 * FNV-1a again, % 10000 / 10000, first half-open range that holds it).
 * Usage: assign_baseline USERS K [REPEAT]   (ids "user-<i>", seeds "bench-exp-<j>", 3 equal variants)
 * Build: cc -O2 -o assign_baseline assign_baseline.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PRIME 16777619u
#define BASIS 0x811c9dc5u

/* FNV-1a over the UTF-16 code units of a UTF-8 string. */
static uint32_t fnv_utf8(uint32_t h, const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint32_t b = s[i];
        if (b < 0x80) { h = (h ^ b) * PRIME; i++; continue; }
        uint32_t c;
        if (b < 0xE0) { c = ((b & 0x1F) << 6) | (s[i + 1] & 0x3F); i += 2; }
        else if (b < 0xF0) { c = ((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F); i += 3; }
        else { c = ((b & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F); i += 4; }
        if (c > 0xFFFF) { c -= 0x10000; h = (h ^ (0xD800 | (c >> 10))) * PRIME; h = (h ^ (0xDC00 | (c & 0x3FF))) * PRIME; }
        else h = (h ^ c) * PRIME;
    }
    return h;
}

static uint32_t fnv_decimal(uint32_t v) {
    char buf[10];
    int n = 0;
    do { buf[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    uint32_t h = BASIS;
    while (n) h = (h ^ (unsigned char)buf[--n]) * PRIME;
    return h;
}

typedef struct { uint32_t seed_state; int nranges; double lo[3], hi[3]; } experiment;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  /* CPU time: descheduled time does not count */
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int users = argc > 1 ? atoi(argv[1]) : 1000000;
    int k = argc > 2 ? atoi(argv[2]) : 1;
    int repeats = argc > 3 ? atoi(argv[3]) : 5;
    char **ids = malloc(sizeof(char *) * users);
    size_t *lens = malloc(sizeof(size_t) * users);
    for (int i = 0; i < users; i++) {
        char tmp[32];
        int n = snprintf(tmp, sizeof tmp, "user-%d", i);
        ids[i] = malloc(n + 1);
        memcpy(ids[i], tmp, n + 1);
        lens[i] = (size_t)n;
    }
    experiment *exps = malloc(sizeof(experiment) * k);
    for (int j = 0; j < k; j++) {
        char seed[32];
        int n = snprintf(seed, sizeof seed, "bench-exp-%d", j);
        exps[j].seed_state = fnv_utf8(BASIS, (const unsigned char *)seed, (size_t)n);
        exps[j].nranges = 3;
        double w = 1.0 / 3.0, c = 0;
        for (int v = 0; v < 3; v++) { exps[j].lo[v] = c; exps[j].hi[v] = c + w; c += w; }
    }
    double best = 1e30;
    uint64_t sum = 0;
    for (int r = 0; r <= repeats; r++) {  /* round 0 is a warm-up */
        double t0 = now();
        uint64_t s = 0;
        for (int i = 0; i < users; i++) {
            for (int j = 0; j < k; j++) {
                const experiment *e = &exps[j];
                uint32_t inner = fnv_utf8(e->seed_state, (const unsigned char *)ids[i], lens[i]);
                double n = (double)(fnv_decimal(inner) % 10000u) / 10000.0;
                int chosen = -1;
                for (int v = 0; v < e->nranges; v++)
                    if (e->lo[v] <= n && n < e->hi[v]) { chosen = v; break; }
                s += (uint64_t)(chosen + 1);
            }
        }
        double t = now() - t0;
        if (r > 0 && t < best) best = t;
        sum = s;
    }
    printf("C -O2  hash+bucket   experiments=%-2d         %8.2f M assignments/s  checksum=%llu\n",
           k, (double)users * k / best / 1e6, (unsigned long long)sum);
    return 0;
}
