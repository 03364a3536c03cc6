/* gloo_frames.c — a fuzz driver for the receive side of our gloo transport (src/distributed/
 * gloo.c): what a hostile or broken peer can make pair_read / handle_preamble do.
 *
 *     gloo_frames [ITERATIONS [SEED]]        (built and run by tests/test_gloo_fuzz.py)
 *
 * Each iteration builds a pair in a random state (posted recvs, pending local sends, expected
 * sends, a recv-from-any), writes one message of 1-4 frames into a socketpair — preambles mixing
 * valid and hostile fields (opcodes out of range, nbytes/length disagreeing, lengths past the
 * 2^48 cap and past the posted buffer, unknown slots), payloads, random bytes, truncation, an
 * early EOF — runs the I/O thread's read step on it, then fails the pair (which frees what it
 * holds) and checks the invariants: a failed pair holds nothing; a recv completes with at most its
 * posted size; nothing is written past a posted buffer (guard bytes). Built with ASan + UBSan the
 * run is the crash / leak / overflow evidence; it prints the counts of each outcome. */
#include "../../src/distributed/gloo.c"

#include <fcntl.h>

static uint64_t rs;
static uint64_t rnd(void) {   /* xorshift64* */
    rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
    return rs * 2685821657736338717ULL;
}
static uint64_t pick(const uint64_t *v, int n) { return v[rnd() % (uint64_t)n]; }

#define NBUF 4
#define BUFN 256
#define GUARD 16
static uint8_t bufs[NBUF][BUFN + GUARD];
static tn_gloo_op ops[16];
static int nops;

static tn_gloo_op *new_op(void) {
    tn_gloo_op *op = &ops[nops++ % 16];
    memset(op, 0, sizeof *op);
    op->pair = -1;
    return op;
}

static const uint64_t SLOTS[] = {0, 1, 7, (uint64_t)4 << 56, UINT64_MAX};
static const uint64_t LENS[] = {0, 1, 8, 64, 255, 256, 257, 4096, (uint64_t)1 << 40, (uint64_t)1 << 48,
                                ((uint64_t)1 << 48) + 1, UINT64_MAX - 47, UINT64_MAX};

static uint64_t match_slot;   /* a slot with a posted recv of match_len bytes, for well-formed data */
static size_t match_len;

static size_t put_frame(uint8_t *m, size_t cap) {
    uint64_t pre[6];
    int kind = (int)(rnd() % 8);
    if (kind == 0) {   /* random bytes */
        size_t n = 1 + rnd() % 96;
        if (n > cap) n = cap;
        for (size_t i = 0; i < n; i++) m[i] = (uint8_t)rnd();
        return n;
    }
    uint64_t op = rnd() % 3 == 0 ? rnd() % 8 : 1 + rnd() % 3;
    uint64_t len = rnd() % 2 ? rnd() % 300 : pick(LENS, (int)(sizeof LENS / sizeof *LENS));
    int matched = match_len && rnd() % 3 == 0;   /* data a posted recv accepts */
    if (matched) op = OP_SEND_UNBOUND, len = rnd() % (match_len + 1);
    pre[0] = op == OP_SEND_UNBOUND ? PREAMBLE + len : PREAMBLE;
    if (!matched && rnd() % 6 == 0) pre[0] = rnd() % 2 ? pick(LENS, (int)(sizeof LENS / sizeof *LENS)) : rnd();
    pre[1] = op;
    pre[2] = matched ? match_slot : pick(SLOTS, (int)(sizeof SLOTS / sizeof *SLOTS));
    pre[3] = rnd() % 4 == 0 ? rnd() : 0;
    pre[4] = len;
    pre[5] = rnd() % 4 == 0 ? rnd() : 0;
    size_t n = sizeof pre < cap ? sizeof pre : cap;
    memcpy(m, pre, n);
    if (op == OP_SEND_UNBOUND && len < 4096) {   /* the payload, sometimes short */
        size_t pay = (size_t)len;
        if (rnd() % 4 == 0) pay = rnd() % (pay + 1);
        for (size_t i = 0; i < pay && n < cap; i++) m[n++] = (uint8_t)(0xA0 + i);
    }
    return n;
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    rs = argc > 2 ? strtoull(argv[2], NULL, 10) : 0x9E3779B97F4A7C15ULL;
    if (!rs) rs = 1;
    tn_gloo_ctx c;
    memset(&c, 0, sizeof c);
    c.rank = 0;
    c.size = 2;
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    pair pairs[2];
    c.pairs = pairs;
    long failed_pairs = 0, completed_recvs = 0, clean = 0;
    static uint8_t msg[1 << 16];
    for (long it = 0; it < iters; it++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 2; }
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        fcntl(sv[1], F_SETFL, O_NONBLOCK);
        memset(pairs, 0, sizeof pairs);
        pairs[0].fd = -1;
        pair *p = &pairs[1];
        p->fd = sv[0];
        p->rank = 1;
        snprintf(p->peer, sizeof p->peer, "[fuzz peer]");
        nops = 0;
        for (int b = 0; b < NBUF; b++) memset(bufs[b], 0xEE, sizeof bufs[b]);
        /* the pair's state: posted recvs, local sends waiting for the peer's ready, counters */
        size_t posted[NBUF] = {0};
        tn_gloo_op *recv_ops[NBUF] = {0};
        int nrecv = (int)(rnd() % 3);
        pthread_mutex_lock(&c.mu);
        match_len = 0;
        for (int r = 0; r < nrecv; r++) {
            posted[r] = (size_t)(rnd() % (BUFN + 1));
            recv_ops[r] = new_op();
            match_slot = pick(SLOTS, 3), match_len = posted[r];
            post_recv_on(&c, p, match_slot, bufs[r], posted[r], recv_ops[r]);
        }
        if (rnd() % 2) {
            pend *q = pend_new(pick(SLOTS, 3), bufs[NBUF - 1], rnd() % 64, new_op());
            if (q) pend_append(&p->lsend, q);
        }
        if (rnd() % 3 == 0) {
            slotc *s = slot_get(p, pick(SLOTS, 3));
            if (s) s->expected_send = (int64_t)(rnd() % 2);
        }
        if (rnd() % 4 == 0) {   /* a recv-from-any that accepts rank 1 */
            struct anyrec *a = calloc(1, sizeof *a);
            if (a && (a->ranks = calloc(2, 1))) {
                a->op = new_op();
                a->slot = pick(SLOTS, 3);
                a->p = bufs[2];
                a->n = posted[2] = (size_t)(rnd() % (BUFN + 1));
                recv_ops[2] = a->op;
                a->ranks[1] = 1;
                a->next = c.anys;
                c.anys = a;
            } else {
                free(a);
            }
        }
        pair_flush(&c, p);   /* the NOTIFY_RECV frames go to the peer's side */
        /* the hostile message */
        size_t n = 0;
        int frames = 1 + (int)(rnd() % 4);
        for (int f = 0; f < frames && n < sizeof msg - 512; f++) n += put_frame(msg + n, sizeof msg - n);
        if (rnd() % 5 == 0 && n) n = rnd() % n;   /* truncated */
        size_t off = 0;
        while (off < n) {
            ssize_t k = write(sv[1], msg + off, n - off);
            if (k <= 0) break;
            off += (size_t)k;
        }
        if (rnd() % 3 == 0) shutdown(sv[1], SHUT_WR);   /* EOF after the message */
        pair_read(&c, p);
        /* invariants */
        for (int r = 0; r < NBUF; r++) {
            for (int g = 0; g < GUARD; g++)
                if (bufs[r][BUFN + g] != 0xEE) { fprintf(stderr, "iteration %ld: write past buffer %d\n", it, r); return 1; }
            if (recv_ops[r] && recv_ops[r]->done && !recv_ops[r]->failed) {
                if (recv_ops[r]->received > posted[r]) {
                    fprintf(stderr, "iteration %ld: recv %d completed with %zu > %zu bytes\n", it, r, recv_ops[r]->received, posted[r]);
                    return 1;
                }
                completed_recvs++;
            }
        }
        if (p->failed) failed_pairs++;
        else clean++;
        pair_fail(&c, p, "fuzz: end of iteration");
        if (p->txh || p->lsend || p->lrecv || p->rcur || p->fd != -1) {
            fprintf(stderr, "iteration %ld: a failed pair still holds state\n", it);
            return 1;
        }
        while (p->slots) {
            slotc *s = p->slots;
            p->slots = s->next;
            free(s);
        }
        while (c.anys) {
            struct anyrec *a = c.anys;
            c.anys = a->next;
            free(a->ranks);
            free(a);
        }
        pthread_mutex_unlock(&c.mu);
        close(sv[1]);
    }
    printf("gloo_frames: %ld messages, %ld pairs failed (malformed / EOF), %ld read cleanly, %ld recvs completed\n",
           iters, failed_pairs, clean, completed_recvs);
    return 0;
}
