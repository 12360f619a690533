/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ZooKeeper metadata store (store_zk.c) against a real ZooKeeper server:
 * the whole store contract (tests/unit/store_contract_test.c), each test in
 * a fresh chroot of its own, then what only ZooKeeper has: chroot creation,
 * connection timeouts, session expiry, connection loss and recovery.
 *
 * Run through tests/cluster/run_with_zk.sh, which starts the server and sets
 * GR_ZK_CONNECT (host:port), GR_ZK_DIR, GR_ZK_PORT and GR_ZK_SCRIPT
 * (ci/zookeeper.sh, to stop and restart the server keeping its data).
 * Without GR_ZK_CONNECT the program skips (exit 77).
 */
#define GR_STORE_CONTRACT_NO_MAIN
#include "../unit/store_contract_test.c"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define THREADED
#include <zookeeper/zookeeper.h>

/* Session timeout of the contract tests' sessions; ZooKeeper's tickTime is 500 ms. */
#define TEST_SESSION_TIMEOUT_MS 6000
/* Long enough that the restart of ZooKeeper in the loss test fits well inside. */
#define LOSS_SESSION_TIMEOUT_MS    30000
#define TEST_CONNECTION_TIMEOUT_MS 15000
/* How long the ZooKeeper-specific tests wait for a state change. */
#define STATE_DEADLINE_S 60.0

/* One chroot per test (and per run: the pid), so tests never see each other's nodes. */
typedef struct zk_ctx {
    char connect[512];
    int32_t session_timeout_ms;
} zk_ctx_t;

static const char *zk_hosts(void)
{
    return getenv("GR_ZK_CONNECT");
}

static void *zk_setup(void)
{
    static unsigned next_chroot; /* test-local numbering */
    zk_ctx_t *c = calloc(1, sizeof(*c));

    assert_non_null(c);
    snprintf(c->connect, sizeof(c->connect), "%s/gregor-test-%d-%u", zk_hosts(), (int)getpid(),
             next_chroot++);
    c->session_timeout_ms = TEST_SESSION_TIMEOUT_MS;
    return c;
}

static gr_store_t *zk_open_connect(const char *connect, int32_t session_timeout_ms,
                                   struct ev_loop *loop)
{
    gr_store_zk_config_t cfg = {
        .connect = connect,
        .session_timeout_ms = session_timeout_ms,
        .connection_timeout_ms = TEST_CONNECTION_TIMEOUT_MS,
    };
    gr_store_t *store = NULL;

    assert_int_equal(gr_store_zk_open(loop, &cfg, NULL, &store), 0);
    assert_non_null(store);
    return store;
}

static gr_store_t *zk_open(void *ctx, struct ev_loop *loop)
{
    zk_ctx_t *c = ctx;
    return zk_open_connect(c->connect, c->session_timeout_ms, loop);
}

static void zk_teardown(void *ctx)
{
    free(ctx); /* the chroot stays: the server lives in a temporary directory */
}

static const store_backend_t zk_backend = {
    .name = "store_contract_zookeeper",
    .setup = zk_setup,
    .open = zk_open,
    .tear = NULL, /* no local files to tear */
    .teardown = zk_teardown,
};

/* ---- helpers ------------------------------------------------------------------------ */

#define MAX_PROBES 32

typedef struct state_log {
    int calls;
    int connected, disconnected, expired;
    gr_store_session_state_t last;
    /* If set, each DISCONNECTED issues an exists on it: an operation pending across
     * whatever comes next. */
    gr_store_session_t *probe_session;
    result_t probes[MAX_PROBES];
    int nprobes;
    /* Probes still unanswered when EXPIRED came (earlier ones may have been
     * answered after a reconnection in between, with any result). */
    bool pending_at_expiry[MAX_PROBES];
} state_log_t;

static void on_state_log(void *opaque, gr_store_session_state_t state)
{
    state_log_t *l = opaque;
    l->calls++;
    l->last = state;
    if (state == GR_STORE_SESSION_CONNECTED)
        l->connected++;
    else if (state == GR_STORE_SESSION_DISCONNECTED)
        l->disconnected++;
    if (state == GR_STORE_SESSION_DISCONNECTED && l->probe_session != NULL &&
        l->nprobes < MAX_PROBES) {
        result_t *r = &l->probes[l->nprobes++];
        assert_int_equal(gr_store_exists(l->probe_session, "/", NULL, NULL, on_stat, r),
                         GR_STORE_OK);
    } else if (state == GR_STORE_SESSION_EXPIRED) {
        l->expired++;
        for (int i = 0; i < l->nprobes; i++)
            l->pending_at_expiry[i] = l->probes[i].calls == 0;
    }
}

static void on_tick(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)t;
    (void)revents;
}

/* Runs the loop in short ticks until cond(arg) holds; fails after STATE_DEADLINE_S. */
static void wait_until(fixture_t *fx, bool (*cond)(void *), void *arg, const char *what)
{
    ev_tstamp deadline = ev_time() + STATE_DEADLINE_S;
    ev_timer tick;

    ev_timer_init(&tick, on_tick, 0.05, 0.05);
    ev_timer_start(fx->loop, &tick);
    while (!cond(arg) && ev_time() < deadline)
        ev_run(fx->loop, EVRUN_ONCE);
    ev_timer_stop(fx->loop, &tick);
    if (!cond(arg))
        fail_msg("%s did not happen within %.0f s", what, STATE_DEADLINE_S);
}

static bool reconnected(void *arg)
{
    const state_log_t *l = arg;
    return l->connected >= 2;
}

static bool int_positive(void *arg)
{
    return *(int *)arg > 0;
}

static bool zhandle_connected(void *arg)
{
    return zoo_state(arg) == ZOO_CONNECTED_STATE;
}

static bool result_done(void *arg)
{
    return ((result_t *)arg)->done;
}

/* A fixture over its own chroot, with a session timeout of choice. */
static fixture_t *fixture_new(int32_t session_timeout_ms)
{
    fixture_t *fx = calloc(1, sizeof(*fx));

    assert_non_null(fx);
    fx->backend = &zk_backend;
    fx->ctx = zk_setup();
    ((zk_ctx_t *)fx->ctx)->session_timeout_ms = session_timeout_ms;
    fx->loop = ev_loop_new(EVFLAG_AUTO);
    fx->store = zk_open(fx->ctx, fx->loop);
    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &fx->s), GR_STORE_OK);
    return fx;
}

static void fixture_free(fixture_t *fx)
{
    if (fx->store != NULL)
        gr_store_close(fx->store);
    ev_loop_destroy(fx->loop);
    zk_teardown(fx->ctx);
    free(fx);
}

/* Runs ci/zookeeper.sh with verb ("stop", "start") on the test's server. */
static void zookeeper_script(const char *verb)
{
    const char *script = getenv("GR_ZK_SCRIPT"), *dir = getenv("GR_ZK_DIR");
    const char *port = getenv("GR_ZK_PORT");
    char cmd[1024];

    assert_non_null(script);
    assert_non_null(dir);
    assert_non_null(port);
    snprintf(cmd, sizeof(cmd), "bash '%s' %s '%s' %s >/dev/null", script, verb, dir,
             strcmp(verb, "start") == 0 ? port : "");
    assert_int_equal(system(cmd), 0);
}

/* ---- ZooKeeper specifics ----------------------------------------------------------------- */

/* open creates a missing chroot, nested, and the store lives inside it. */
static void test_zk_chroot_created(void **state)
{
    fixture_t fx = {.loop = ev_loop_new(EVFLAG_AUTO)};
    char connect[600], chroot[200], path[GR_STORE_PATH_MAX + 1];
    gr_store_stat_t st;
    (void)state;

    snprintf(chroot, sizeof(chroot), "/gregor-chroot-%d/a/b", (int)getpid());
    snprintf(connect, sizeof(connect), "%s%s", zk_hosts(), chroot);
    gr_store_t *inside = zk_open_connect(connect, TEST_SESSION_TIMEOUT_MS, fx.loop);
    gr_store_session_t *in;
    assert_int_equal(gr_store_session_open(inside, NULL, NULL, &in), GR_STORE_OK);
    assert_int_equal(do_create(&fx, in, "/node", "x", 0, path), GR_STORE_OK);
    assert_string_equal(path, "/node"); /* paths come back without the chroot */
    assert_int_equal(do_create(&fx, in, "/seq-", "", GR_STORE_SEQUENTIAL, path), GR_STORE_OK);
    assert_string_equal(path, "/seq-0000000001");

    /* Seen from the root: the chroot exists and holds the node. */
    fx.store = zk_open_connect(zk_hosts(), TEST_SESSION_TIMEOUT_MS, fx.loop);
    assert_int_equal(gr_store_session_open(fx.store, NULL, NULL, &fx.s), GR_STORE_OK);
    snprintf(path, sizeof(path), "%s/node", chroot);
    assert_int_equal(do_exists(&fx, fx.s, path, NULL, &st), GR_STORE_OK);
    assert_int_equal(st.data_length, 1);

    /* Opening again with the chroot already there is fine. */
    gr_store_close(inside);
    inside = zk_open_connect(connect, TEST_SESSION_TIMEOUT_MS, fx.loop);
    assert_int_equal(gr_store_session_open(inside, NULL, NULL, &in), GR_STORE_OK);
    assert_int_equal(do_exists(&fx, in, "/node", NULL, NULL), GR_STORE_OK);
    gr_store_close(inside);
    gr_store_close(fx.store);
    ev_loop_destroy(fx.loop);
}

static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd); /* nobody listens there now */
    return ntohs(a.sin_port);
}

/* Nobody answering: -ETIMEDOUT once the connection timeout is over. Bad strings: -EINVAL. */
static void test_zk_open_errors(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    char connect[64];
    gr_store_t *store = NULL;
    static const char *const malformed[] = {
        "",     "localhost", "localhost:", "localhost:0", "localhost:65536", "h:1,",      ",h:1",
        "h:x1", ":2181",     "h:1/bad/",   "h:1//x",      "h:1/a/../b",      "h:1234567", NULL,
    };
    (void)state;

    snprintf(connect, sizeof(connect), "127.0.0.1:%d/x", free_port());
    gr_store_zk_config_t cfg = {
        .connect = connect, .session_timeout_ms = 4000, .connection_timeout_ms = 1500};
    assert_int_equal(gr_store_zk_open(loop, &cfg, NULL, &store), -ETIMEDOUT);
    assert_null(store);

    for (int i = 0; malformed[i] != NULL; i++) {
        cfg.connect = malformed[i];
        assert_int_equal(gr_store_zk_open(loop, &cfg, NULL, &store), -EINVAL);
    }
    cfg.connect = NULL;
    assert_int_equal(gr_store_zk_open(loop, &cfg, NULL, &store), -EINVAL);
    cfg.connect = zk_hosts();
    cfg.session_timeout_ms = 0;
    assert_int_equal(gr_store_zk_open(loop, &cfg, NULL, &store), -EINVAL);
    assert_null(store);
    ev_loop_destroy(loop);
}

/* Runs the loop for up to seconds, or until cond(arg) holds. Returns cond(arg). */
static bool run_until(fixture_t *fx, bool (*cond)(void *), void *arg, double seconds)
{
    ev_tstamp deadline = ev_time() + seconds;
    ev_timer tick;

    ev_timer_init(&tick, on_tick, 0.005, 0.005);
    ev_timer_start(fx->loop, &tick);
    while (!cond(arg) && ev_time() < deadline)
        ev_run(fx->loop, EVRUN_ONCE);
    ev_timer_stop(fx->loop, &tick);
    return cond(arg);
}

/*
 * Expires a session as ZooKeeper's own tests do: a second client takes it
 * over with its id and password, then closes it, which ends the session on
 * the server; the first client learns it when it reconnects. The first
 * client may win the session back before the second one's close is sent (the
 * C client reconnects within milliseconds), in which case the close is a
 * no-op: try again until the expiry is seen.
 */
static void expire_session(fixture_t *fx, gr_store_session_t *s, state_log_t *states)
{
    clientid_t id;
    int64_t sid;
    const char *connect = ((zk_ctx_t *)fx->ctx)->connect;

    assert_int_equal(gr_store_zk_session_credentials(s, &sid, id.passwd), 0);
    id.client_id = sid;
    for (int attempt = 0; attempt < 20; attempt++) {
        zhandle_t *thief = zookeeper_init(connect, NULL, TEST_SESSION_TIMEOUT_MS, &id, NULL, 0);
        assert_non_null(thief);
        bool took = run_until(fx, zhandle_connected, thief, STATE_DEADLINE_S);
        zookeeper_close(thief);
        if (took && run_until(fx, int_positive, &states->expired, 5.0))
            return;
    }
    fail_msg("the session never expired");
}

static void test_zk_session_expiry(void **state)
{
    fixture_t *fx = fixture_new(TEST_SESSION_TIMEOUT_MS);
    gr_store_session_t *s;
    state_log_t states = {0};
    watch_log_t mine = {0}, mine_children = {0}, theirs = {0};
    result_t r;
    gr_store_stat_t st;
    (void)state;

    assert_int_equal(gr_store_session_open(fx->store, on_state_log, &states, &s), GR_STORE_OK);
    wait_until(fx, int_positive, &states.connected, "CONNECTED");
    assert_int_equal(do_create(fx, fx->s, "/data", "d", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, s, "/eph", "e", GR_STORE_EPHEMERAL, NULL), GR_STORE_OK);
    assert_int_equal(do_exists(fx, s, "/eph", NULL, &st), GR_STORE_OK);
    assert_true(st.ephemeral_owner == gr_store_session_id(s));
    /* The doomed session watches; so does another session. */
    assert_int_equal(gr_store_get(s, "/data", on_watch, &mine, on_data, &r), GR_STORE_OK);
    wait_for(fx, &r.done);
    memset(&r, 0, sizeof(r));
    assert_int_equal(gr_store_children(s, "/data", on_watch, &mine_children, on_children, &r),
                     GR_STORE_OK);
    wait_for(fx, &r.done);
    assert_int_equal(do_exists(fx, fx->s, "/eph", &theirs, NULL), GR_STORE_OK);

    states.probe_session = s;
    expire_session(fx, s, &states);
    assert_int_equal(states.expired, 1);
    /* Each operation issued while disconnected was answered once; those pending
     * when the session expired got SESSIONEXPIRED (or CONNLOSS, had the client
     * failed them on a lost connection first). One issued before the client
     * got its session back between two of expire_session's attempts may have
     * been answered normally then. */
    assert_true(states.nprobes >= 1);
    for (int i = 0; i < states.nprobes; i++) {
        wait_until(fx, result_done, &states.probes[i], "a probe's completion");
        assert_int_equal(states.probes[i].calls, 1);
        int rc = states.probes[i].rc;
        if (states.pending_at_expiry[i] && rc != GR_STORE_SESSIONEXPIRED && rc != GR_STORE_CONNLOSS)
            fail_msg("probe %d pending at the expiry answered %d", i, rc);
    }
    assert_int_equal(states.last, GR_STORE_SESSION_EXPIRED);
    /* Its watches were told they are gone, once each. */
    assert_int_equal(mine.calls, 1);
    assert_int_equal(mine.event, GR_STORE_EVENT_NOT_WATCHING);
    assert_string_equal(mine.path, "/data");
    assert_int_equal(mine_children.calls, 1);
    assert_int_equal(mine_children.event, GR_STORE_EVENT_NOT_WATCHING);
    /* New operations are refused at once. */
    assert_int_equal(gr_store_get(s, "/data", NULL, NULL, on_data, &r), GR_STORE_SESSIONEXPIRED);
    assert_int_equal(gr_store_create(s, "/x", "", 0, 0, on_create, &r), GR_STORE_SESSIONEXPIRED);
    /* Its ephemeral went with it, which the other session's watch saw. */
    assert_int_equal(do_exists(fx, fx->s, "/eph", NULL, NULL), GR_STORE_NONODE);
    assert_int_equal(theirs.calls, 1);
    assert_int_equal(theirs.event, GR_STORE_EVENT_DELETED);
    /* Nothing more comes for the dead session; closing it is quiet. */
    assert_int_equal(do_set(fx, "/data", "changed", -1, NULL), GR_STORE_OK);
    barrier(fx, fx->s);
    assert_int_equal(mine.calls, 1);
    int calls = states.calls;
    gr_store_session_close(s);
    assert_int_equal(states.calls, calls);
    /* A new session works. */
    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &s), GR_STORE_OK);
    assert_int_equal(do_create(fx, s, "/eph", "again", GR_STORE_EPHEMERAL, NULL), GR_STORE_OK);
    fixture_free(fx);
}

/* What a broker does on expiry: close the dead session and open a new one, from the callback. */
typedef struct reopener {
    fixture_t *fx;
    gr_store_session_t *s;
    state_log_t log;
} reopener_t;

static void on_state_reopen(void *opaque, gr_store_session_state_t state)
{
    reopener_t *r = opaque;

    on_state_log(&r->log, state);
    if (state != GR_STORE_SESSION_EXPIRED)
        return;
    gr_store_session_close(r->s);
    r->s = NULL;
    r->log.probe_session = NULL;
    assert_int_equal(gr_store_session_open(r->fx->store, on_state_reopen, r, &r->s), GR_STORE_OK);
}

static void test_zk_session_expiry_reopen(void **state)
{
    fixture_t *fx = fixture_new(TEST_SESSION_TIMEOUT_MS);
    reopener_t r = {.fx = fx};
    watch_log_t mine = {0};
    (void)state;

    assert_int_equal(gr_store_session_open(fx->store, on_state_reopen, &r, &r.s), GR_STORE_OK);
    assert_int_equal(do_create(fx, r.s, "/eph", "1", GR_STORE_EPHEMERAL, NULL), GR_STORE_OK);
    /* A node nothing changes: its own ephemeral's deletion could reach it first. */
    assert_int_equal(do_create(fx, fx->s, "/w", "", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_exists(fx, r.s, "/w", &mine, NULL), GR_STORE_OK);
    gr_store_session_t *old = r.s;
    r.log.probe_session = r.s;
    expire_session(fx, r.s, &r.log);
    assert_true(r.s != NULL && r.s != old);
    for (int i = 0; i < r.log.nprobes; i++)
        wait_until(fx, result_done, &r.log.probes[i], "a probe's completion");
    /* The watch was answered before the state change, and only once. */
    assert_int_equal(mine.calls, 1);
    assert_int_equal(mine.event, GR_STORE_EVENT_NOT_WATCHING);
    /* The new session registers again. */
    assert_int_equal(do_create(fx, r.s, "/eph", "2", GR_STORE_EPHEMERAL, NULL), GR_STORE_OK);
    assert_int_equal(r.log.expired, 1);
    assert_true(r.log.connected >= 2);
    fixture_free(fx);
}

/*
 * ZooKeeper stopped and restarted with its data, within the session timeout:
 * the session reports DISCONNECTED then CONNECTED, keeps its id, its
 * ephemeral and its watches; what was issued during the outage failed with
 * CONNLOSS (or OPERATIONTIMEOUT).
 */
static void test_zk_connection_loss(void **state)
{
    fixture_t *fx = fixture_new(LOSS_SESSION_TIMEOUT_MS);
    gr_store_session_t *s;
    state_log_t states = {0};
    watch_log_t w = {0};
    result_t r, during = {0};
    gr_store_stat_t st;
    (void)state;

    if (getenv("GR_ZK_SCRIPT") == NULL)
        skip();
    assert_int_equal(gr_store_session_open(fx->store, on_state_log, &states, &s), GR_STORE_OK);
    assert_int_equal(do_create(fx, fx->s, "/d", "0", 0, NULL), GR_STORE_OK);
    assert_int_equal(do_create(fx, s, "/eph", "e", GR_STORE_EPHEMERAL, NULL), GR_STORE_OK);
    assert_int_equal(do_get(fx, "/d", NULL, &r), GR_STORE_OK);
    assert_int_equal(gr_store_get(s, "/d", on_watch, &w, on_data, &r), GR_STORE_OK);
    wait_for(fx, &r.done);
    int64_t id = gr_store_session_id(s);
    assert_true(id != 0);
    assert_int_equal(states.connected, 1);

    zookeeper_script("stop");
    wait_until(fx, int_positive, &states.disconnected, "DISCONNECTED");
    assert_int_equal(gr_store_exists(s, "/d", NULL, NULL, on_stat, &during), GR_STORE_OK);
    wait_until(fx, result_done, &during, "the completion of an operation issued while down");
    assert_true(during.rc == GR_STORE_CONNLOSS || during.rc == GR_STORE_OPERATIONTIMEOUT);

    zookeeper_script("start");
    wait_until(fx, reconnected, &states, "CONNECTED again");
    assert_int_equal(states.connected, 2);
    assert_int_equal(states.disconnected, 1);
    assert_int_equal(states.expired, 0);
    assert_true(gr_store_session_id(s) == id);
    /* The ephemeral is still the session's. */
    assert_int_equal(do_exists(fx, s, "/eph", NULL, &st), GR_STORE_OK);
    assert_true(st.ephemeral_owner == id);
    /* The watch set before the outage still fires, on a change by a new session
     * (fx->s may still be reconnecting). */
    gr_store_session_t *other;
    result_t set = {0};
    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &other), GR_STORE_OK);
    assert_int_equal(w.calls, 0);
    assert_int_equal(gr_store_set(other, "/d", "1", 1, -1, on_stat, &set), GR_STORE_OK);
    wait_for(fx, &set.done);
    assert_int_equal(set.rc, GR_STORE_OK);
    barrier(fx, s);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.event, GR_STORE_EVENT_CHANGED);
    assert_int_equal(do_create(fx, s, "/after", "", 0, NULL), GR_STORE_OK);
    fixture_free(fx);
}

/* Closing the store from inside one of its callbacks; the loop is then idle. */
static void on_done_close_store(void *opaque, int rc)
{
    gr_store_t **store = opaque;
    (void)rc;
    gr_store_close(*store);
    *store = NULL;
}

static void test_zk_close_in_callback(void **state)
{
    fixture_t *fx = fixture_new(TEST_SESSION_TIMEOUT_MS);
    result_t created = {0}, later = {0}, other_later = {0};
    gr_store_session_t *other;
    watch_log_t w = {0};
    (void)state;

    assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &other), GR_STORE_OK);
    /* Only outstanding operations keep ev_run(loop, 0) going: it returns once the
     * create is answered, although watches and sessions stay. */
    assert_int_equal(gr_store_create(fx->s, "/c", "", 0, 0, on_create, &created), GR_STORE_OK);
    ev_run(fx->loop, 0);
    assert_int_equal(created.calls, 1);
    assert_int_equal(created.rc, GR_STORE_OK);
    assert_int_equal(do_exists(fx, other, "/c", &w, NULL), GR_STORE_OK);
    ev_run(fx->loop, 0);

    assert_int_equal(gr_store_delete(fx->s, "/nothing", -1, on_done_close_store, &fx->store),
                     GR_STORE_OK);
    assert_int_equal(gr_store_exists(fx->s, "/", NULL, NULL, on_stat, &later), GR_STORE_OK);
    assert_int_equal(gr_store_exists(other, "/c", NULL, NULL, on_stat, &other_later), GR_STORE_OK);
    ev_run(fx->loop, 0);
    assert_null(fx->store);
    assert_int_equal(later.calls, 1);
    assert_int_equal(later.rc, GR_STORE_CLOSING);
    assert_int_equal(other_later.calls, 1);
    assert_true(other_later.rc == GR_STORE_CLOSING || other_later.rc == GR_STORE_OK);
    assert_int_equal(w.calls, 0); /* dropped silently */
    fixture_free(fx);
}

/* Many operations in flight on several sessions, two closed midway: every
 * completion is called exactly once, with OK or CLOSING. */
#define FLIGHT_SESSIONS 4
#define FLIGHT_OPS      200

static void test_zk_many_in_flight(void **state)
{
    fixture_t *fx = fixture_new(TEST_SESSION_TIMEOUT_MS);
    gr_store_session_t *s[FLIGHT_SESSIONS];
    static result_t results[FLIGHT_SESSIONS][FLIGHT_OPS];
    watch_log_t watches[FLIGHT_SESSIONS] = {{0}};
    char path[64];
    (void)state;

    memset(results, 0, sizeof(results));
    assert_int_equal(do_create(fx, fx->s, "/f", "", 0, NULL), GR_STORE_OK);
    for (int i = 0; i < FLIGHT_SESSIONS; i++)
        assert_int_equal(gr_store_session_open(fx->store, NULL, NULL, &s[i]), GR_STORE_OK);
    for (int n = 0; n < FLIGHT_OPS; n++) {
        for (int i = n > FLIGHT_OPS / 2 ? 1 : 0; i < FLIGHT_SESSIONS; i++) {
            result_t *r = &results[i][n];
            snprintf(path, sizeof(path), "/f/s%d-%d", i, n);
            if (n % 2 == 0)
                assert_int_equal(
                    gr_store_create(s[i], path, "x", 1, GR_STORE_EPHEMERAL, on_create, r),
                    GR_STORE_OK);
            else
                assert_int_equal(gr_store_get(s[i], "/f", on_watch, &watches[i], on_data, r),
                                 GR_STORE_OK);
        }
        if (n == FLIGHT_OPS / 2) {
            ev_run(fx->loop, EVRUN_NOWAIT);
            gr_store_session_close(s[0]);
        }
    }
    gr_store_session_close(s[1]);
    for (int i = 0; i < FLIGHT_SESSIONS; i++)
        for (int n = 0; n < FLIGHT_OPS; n++)
            if (i >= 2)
                wait_for(fx, &results[i][n].done);
    gr_store_close(fx->store);
    fx->store = NULL;
    for (int i = 0; i < FLIGHT_SESSIONS; i++) {
        for (int n = 0; n < FLIGHT_OPS; n++) {
            const result_t *r = &results[i][n];
            assert_int_equal(r->calls, i == 0 && n > FLIGHT_OPS / 2 ? 0 : 1);
            if (i >= 2)
                assert_int_equal(r->rc, GR_STORE_OK);
            else
                assert_true(r->rc == GR_STORE_OK || r->rc == GR_STORE_CLOSING);
        }
    }
    fixture_free(fx);
}

int main(void)
{
    if (zk_hosts() == NULL) {
        fprintf(stderr, "GR_ZK_CONNECT is not set: run through tests/cluster/run_with_zk.sh\n");
        return 77;
    }
    const struct CMUnitTest zk_tests[] = {
        cmocka_unit_test(test_zk_chroot_created),  cmocka_unit_test(test_zk_open_errors),
        cmocka_unit_test(test_zk_session_expiry),  cmocka_unit_test(test_zk_session_expiry_reopen),
        cmocka_unit_test(test_zk_connection_loss), cmocka_unit_test(test_zk_close_in_callback),
        cmocka_unit_test(test_zk_many_in_flight),
    };
    int failed = store_contract_run(&zk_backend);
    failed += cmocka_run_group_tests_name("store_zookeeper", zk_tests, NULL, NULL);
    return failed;
}
