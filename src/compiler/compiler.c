/*
 * compiler.c — the real compiler, from the caller's side: finding libtpu,
 * running the worker (worker.c) in a child process under a deadline, and
 * turning its messages into a vmem_compile_result.
 *
 * Everything the child says arrives on one pipe; what libtpu prints goes
 * to a second one, of which the tail is kept to name a crash by its fatal
 * line ("F1207 ... Check failed: ..."). Both are drained together, so a
 * large compiled module never blocks the child on a full pipe.
 */
#define _DEFAULT_SOURCE /* glob, kill, realpath */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "compiler.h"

struct vmem_compiler {
  arena a;
  const char *path;
  const char *version;
};

typedef struct result_box {
  vmem_compile_result pub;
  arena a;
} result_box;

static const char *const status_names[] = {"compiled", "refused", "crashed", "timeout"};

const char *vmem_compile_status_name(vmem_compile_status s) {
  return (unsigned)s < sizeof status_names / sizeof *status_names ? status_names[s] : "invalid";
}

/* ## Finding libtpu */

static bool is_file(const char *p) {
  struct stat st;
  return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first site-packages/libtpu/libtpu.so under a Python prefix. */
static bool under_prefix(const char *prefix, size_t plen, char *out, size_t cap) {
  char pattern[4096];
  if (snprintf(pattern, sizeof pattern, "%.*s/lib/python3*/site-packages/libtpu/libtpu.so", (int)plen, prefix) >=
      (int)sizeof pattern)
    return false;
  glob_t g;
  bool found = false;
  if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0 && strlen(g.gl_pathv[0]) < cap) {
    strcpy(out, g.gl_pathv[0]);
    found = true;
  }
  globfree(&g);
  return found;
}

/* Each directory of $PATH that holds a python3 stands for the environment
 * one level up (a venv's bin/, or an installation's). */
static bool on_path(char *out, size_t cap, int *envs) {
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    const char *colon = strchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    char py[4096];
    if (n > 0 && n < sizeof py - 16) {
      snprintf(py, sizeof py, "%.*s/python3", (int)n, p);
      if (access(py, X_OK) == 0) {
        ++*envs;
        const char *slash = p + n;
        while (slash > p && slash[-1] == '/')
          slash--;
        while (slash > p && slash[-1] != '/')
          slash--;
        if (slash > p && under_prefix(p, (size_t)(slash - 1 - p), out, cap))
          return true;
      }
    }
    p = colon ? colon + 1 : p + n;
  }
  return false;
}

static bool find_libtpu(const char *given, char *out, size_t cap, vmem_error *err) {
  const char *env = getenv("VMEMSCOPE_LIBTPU");
  const char *pick = given && *given ? given : env && *env ? env : NULL;
  if (pick) {
    /* Absolute: dlopen searches the library path for a name without a
     * slash, and would not look at the file named. */
    char *abs = is_file(pick) ? realpath(pick, NULL) : NULL;
    bool fits = abs && strlen(abs) < cap;
    if (fits)
      strcpy(out, abs);
    free(abs);
    if (fits)
      return true;
    err_set(err, VMEM_ERR_UNKNOWN, 0, "%s: no such file (given as the libtpu to use%s)", pick,
            pick == env ? " by $VMEMSCOPE_LIBTPU" : "");
    return false;
  }
  const char *venv = getenv("VIRTUAL_ENV");
  if (venv && *venv && under_prefix(venv, strlen(venv), out, cap))
    return true;
  int envs = 0;
  if (on_path(out, cap, &envs))
    return true;
  err_set(err, VMEM_ERR_UNKNOWN, 0,
          "no libtpu found ($VMEMSCOPE_LIBTPU unset; none in $VIRTUAL_ENV or the %d Python environment%s on "
          "$PATH): pip install libtpu (jax[tpu] has it), or give --libtpu PATH",
          envs, envs == 1 ? "" : "s");
  return false;
}

/* The package's version, from the libtpu-X.dist-info folder beside the
 * libtpu/ folder that holds the file. */
static bool package_version(const char *path, char *out, size_t cap) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash || (size_t)(slash - path) >= sizeof dir)
    return false;
  memcpy(dir, path, (size_t)(slash - path));
  dir[slash - path] = 0;
  char *up = strrchr(dir, '/');
  if (!up || strcmp(up, "/libtpu") != 0)
    return false;
  *up = 0;
  DIR *d = opendir(dir);
  bool found = false;
  for (struct dirent *e; d && !found && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n > 17 && strncmp(e->d_name, "libtpu-", 7) == 0 && strcmp(e->d_name + n - 10, ".dist-info") == 0 &&
        n - 17 < cap) {
      memcpy(out, e->d_name + 7, n - 17);
      out[n - 17] = 0;
      found = true;
    }
  }
  if (d)
    closedir(d);
  return found;
}

/* ## The child and its messages */

typedef struct reply {
  unsigned char *buf; /* everything the child wrote on the result pipe */
  size_t len, cap;
  char log[16384]; /* the tail of what it printed */
  size_t loglen;
  int wait_status;
  bool timed_out, oom;
  double seconds;
} reply;

static bool reply_grow(reply *r, const vmem_allocator *alloc, size_t more) {
  if (more <= r->cap - r->len)
    return true;
  size_t cap = r->cap ? r->cap : 65536;
  while (cap - r->len < more) {
    if (cap > SIZE_MAX / 2)
      return false;
    cap *= 2;
  }
  unsigned char *b = vmem__alloc(alloc, cap);
  if (!b)
    return false;
  if (r->len)
    memcpy(b, r->buf, r->len);
  vmem__free(alloc, r->buf);
  r->buf = b;
  r->cap = cap;
  return true;
}

static void log_keep(reply *r, const char *p, size_t n) {
  if (n >= sizeof r->log) {
    p += n - (sizeof r->log - 1);
    n = sizeof r->log - 1;
  }
  if (r->loglen + n >= sizeof r->log) {
    size_t drop = r->loglen + n - (sizeof r->log - 1);
    memmove(r->log, r->log + drop, r->loglen - drop);
    r->loglen -= drop;
  }
  memcpy(r->log + r->loglen, p, n);
  r->loglen += n;
  r->log[r->loglen] = 0;
}

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Reads both pipes until the child closes them or the deadline passes. */
static void drain(int res, int log, pid_t pid, double deadline, const vmem_allocator *alloc, reply *r) {
  struct pollfd fds[2] = {{.fd = res, .events = POLLIN}, {.fd = log, .events = POLLIN}};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    double left = deadline - mono();
    if (left <= 0) {
      r->timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
    int n = poll(fds, 2, ms);
    if (n < 0 && errno != EINTR)
      break;
    for (int i = 0; n > 0 && i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[65536];
      ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        fds[i].fd = -1;
      } else if (i == 1) {
        log_keep(r, chunk, (size_t)got);
      } else if (!reply_grow(r, alloc, (size_t)got)) {
        r->oom = true;
        kill(pid, SIGKILL);
        fds[0].fd = fds[1].fd = -1;
      } else {
        memcpy(r->buf + r->len, chunk, (size_t)got);
        r->len += (size_t)got;
      }
    }
  }
  while (waitpid(pid, &r->wait_status, 0) < 0 && errno == EINTR)
    ;
}

/* Starts the worker on `job` and collects its reply. */
static bool run_child(const cw_job *job, double timeout, const vmem_allocator *alloc, reply *r, vmem_error *err) {
  int res[2], log[2];
  if (pipe(res) != 0)
    return err_set(err, VMEM_ERR_ARGUMENT, 0, "cannot make a pipe for the compiler: %s", strerror(errno)), false;
  if (pipe(log) != 0) {
    close(res[0]);
    close(res[1]);
    return err_set(err, VMEM_ERR_ARGUMENT, 0, "cannot make a pipe for the compiler: %s", strerror(errno)), false;
  }
  double start = mono();
  pid_t pid = fork();
  if (pid == 0) {
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a caller that dies takes its compile with it */
#endif
    close(res[0]);
    close(log[0]);
    dup2(log[1], STDOUT_FILENO);
    dup2(log[1], STDERR_FILENO);
    close(log[1]);
    cw_main(job, res[1]);
  }
  close(res[1]);
  close(log[1]);
  if (pid < 0) {
    close(res[0]);
    close(log[0]);
    return err_set(err, VMEM_ERR_ARGUMENT, 0, "cannot start the compiler's process: %s", strerror(errno)), false;
  }
  drain(res[0], log[0], pid, start + timeout, alloc, r);
  close(res[0]);
  close(log[0]);
  r->seconds = mono() - start;
  if (r->oom)
    return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory reading the compiled module"), false;
  return true;
}

static uint64_t le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* One message of the reply: its tag, bytes and length; false at the end or
 * on a message cut short (the child died while writing). */
static bool next_message(const reply *r, size_t *at, int *tag, const unsigned char **body, size_t *len) {
  if (r->len - *at < 9)
    return false;
  uint64_t n = le(r->buf + *at + 1, 8);
  if (n > r->len - *at - 9)
    return false;
  *tag = r->buf[*at];
  *body = r->buf + *at + 9;
  *len = (size_t)n;
  *at += 9 + (size_t)n;
  return true;
}

/* The fatal line libtpu printed last, less its "F1207 12:00:00.000 123
 * file.cc:1] " prefix; else the last line. */
static const char *last_words(arena *a, const reply *r) {
  const char *best = NULL, *end = r->log + r->loglen;
  for (const char *p = r->log; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      nl = end;
    if (nl - p > 6 && p[0] == 'F' && ch_is_digit(p[1]) && ch_is_digit(p[4]))
      best = p;
    p = nl + 1;
  }
  if (best) {
    const char *nl = memchr(best, '\n', (size_t)(end - best));
    const char *text = memchr(best, ']', (size_t)((nl ? nl : end) - best));
    text = text ? text + 1 : best;
    while (*text == ' ')
      text++;
    return arena_strndup(a, text, (size_t)((nl ? nl : end) - text));
  }
  const char *e = end;
  while (e > r->log && (e[-1] == '\n' || e[-1] == ' '))
    e--;
  const char *b = e;
  while (b > r->log && b[-1] != '\n')
    b--;
  return arena_strndup(a, b, (size_t)(e - b));
}

/* ## Opening */

/* The version line from a CW_VERSION message: "PJRT API 0.112". */
static const char *version_text(arena *a, const char *path, const unsigned char *body, size_t len) {
  char pkg[64], buf[160];
  int major = len >= 8 ? (int)(int32_t)le(body, 4) : 0, minor = len >= 8 ? (int)(int32_t)le(body + 4, 4) : 0;
  if (package_version(path, pkg, sizeof pkg))
    snprintf(buf, sizeof buf, "libtpu %s, PJRT API %d.%d", pkg, major, minor);
  else
    snprintf(buf, sizeof buf, "PJRT API %d.%d", major, minor);
  return arena_strndup(a, buf, strlen(buf));
}

/* An error message from the worker (CW_ERROR): the code, and the text. */
static void worker_error(const unsigned char *body, size_t len, int *code, char *stage, const char **text,
                         size_t *tlen) {
  *code = len >= 4 ? (int)(int32_t)le(body, 4) : 2;
  *stage = len >= 5 ? (char)body[4] : '?';
  *text = len > 5 ? (const char *)body + 5 : "";
  *tlen = len > 5 ? len - 5 : 0;
}

/* A probe's failure as an error value: what was tried and what it said. */
static void probe_failed(const char *path, const reply *r, vmem_error *err) {
  size_t at = 0, len;
  int tag, code;
  char stage;
  const unsigned char *body;
  const char *text;
  size_t tlen;
  while (next_message(r, &at, &tag, &body, &len)) {
    if (tag != CW_ERROR)
      continue;
    worker_error(body, len, &code, &stage, &text, &tlen);
    if (stage == 'l')
      err_set(err, VMEM_ERR_UNSUPPORTED, 0, "%s is not a loadable libtpu: %.*s", path, (int)tlen, text);
    else if (stage == 'v')
      err_set(err, VMEM_ERR_UNSUPPORTED, 0, "%.*s", (int)tlen, text);
    else
      err_set(err, VMEM_ERR_UNSUPPORTED, 0, "%s failed to initialise: %.*s", path, (int)tlen, text);
    return;
  }
  if (r->timed_out)
    err_set(err, VMEM_ERR_UNSUPPORTED, 0, "%s did not load within %.0f s", path, r->seconds);
  else
    err_set(err, VMEM_ERR_UNSUPPORTED, 0, "%s: loading it ended the process (status %d)", path, r->wait_status);
}

vmem_compiler *vmem_compiler_open(const char *path, const vmem_allocator *alloc, vmem_error *err) {
  vmem_error local;
  if (!err)
    err = &local;
  err_clear(err);
  char found[4096];
  if (!find_libtpu(path, found, sizeof found, err))
    return NULL;
  reply r = {0};
  cw_job job = {.libtpu = found};
  if (!run_child(&job, 60, alloc, &r, err)) {
    vmem__free(alloc, r.buf);
    return NULL;
  }
  size_t at = 0, len;
  int tag;
  const unsigned char *body = NULL, *version = NULL;
  size_t vlen = 0;
  bool done = false;
  while (next_message(&r, &at, &tag, &body, &len)) {
    if (tag == CW_VERSION)
      version = body, vlen = len;
    done |= tag == CW_DONE;
  }
  vmem_compiler *c = NULL;
  if (!done || !version) {
    probe_failed(found, &r, err);
  } else {
    arena a;
    arena_init(&a, alloc);
    c = arena_calloc(&a, 1, sizeof *c);
    if (c && (c->path = arena_strndup(&a, found, strlen(found))) &&
        (c->version = version_text(&a, found, version, vlen))) {
      c->a = a;
    } else {
      arena_destroy(&a);
      c = NULL;
      err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    }
  }
  vmem__free(alloc, r.buf);
  return c;
}

void vmem_compiler_close(vmem_compiler *c) {
  if (c) {
    arena a = c->a;
    arena_destroy(&a);
  }
}

const char *vmem_compiler_path(const vmem_compiler *c) { return c ? c->path : NULL; }
const char *vmem_compiler_version(const vmem_compiler *c) { return c ? c->version : NULL; }

/* ## Compiling */

/* Shardy's dialect in the module: jax lowers with it by default, and the
 * compiler must be told to partition with it. */
static bool uses_shardy(const char *m, size_t n) {
  static const char needle[] = "sdy.";
  for (size_t i = 0; i + sizeof needle - 1 <= n; i++)
    if (memcmp(m + i, needle, sizeof needle - 1) == 0)
      return true;
  return false;
}

static const char *topology_of(const vmem_compile_options *o, vmem_error *err) {
  if (o && o->topology && *o->topology)
    return o->topology;
  const vmem_target *t = o && o->target ? o->target : vmem_target_find("v5e", 3);
  const char *topo = vmem_target_topology(t);
  if (!topo)
    err_set(err, VMEM_ERR_UNSUPPORTED, 0, "no libtpu topology is known for %s; name one (e.g. --topology v6e:2x2)",
            vmem_target_name(t));
  return topo;
}

/* Whether the compiler's message is an E1001, and its figures: the
 * library's own log reader (vmem_explain) reads it, as explain reads a log;
 * false only when out of memory. */
static bool read_e1001(result_box *box, const vmem_target *t, vmem_error *err) {
  vmem_compile_result *res = &box->pub;
  vmem_error xe;
  vmem_log_report *lr = vmem_explain(res->error_text, strlen(res->error_text), t, &box->a.alloc, &xe);
  if (!lr && xe.code == VMEM_ERR_NOMEM)
    return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), false;
  for (size_t i = 0; lr && i < vmem_log_error_count(lr) && !res->scoped_oom; i++) {
    const vmem_log_error *e = vmem_log_error_at(lr, i);
    if (e->kind != VMEM_OOM_SCOPED_VMEM)
      continue;
    res->scoped_oom = true;
    res->e1001_size = e->size, res->e1001_limit = e->limit, res->e1001_excess = e->excess;
    if (e->instruction && !(res->e1001_instruction = arena_strndup(&box->a, e->instruction, strlen(e->instruction)))) {
      vmem_log_report_free(lr);
      return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), false;
    }
  }
  vmem_log_report_free(lr);
  return true;
}

/* What the reply says, into the result. */
static vmem_status read_reply(const reply *r, result_box *box, const vmem_target *t, vmem_error *err) {
  vmem_compile_result *res = &box->pub;
  size_t at = 0, len;
  int tag;
  const unsigned char *body;
  bool done = false;
  while (next_message(r, &at, &tag, &body, &len)) {
    if (tag == CW_ERROR) {
      char stage;
      const char *text;
      size_t tlen;
      worker_error(body, len, &res->error_code, &stage, &text, &tlen);
      res->status = VMEM_COMPILE_REFUSED;
      if (!(res->error_text = arena_strndup(&box->a, text, tlen)))
        return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
      if (!read_e1001(box, t, err))
        return VMEM_ERR_NOMEM;
    } else if (tag == CW_STATS && len == 40) {
      res->has_stats = true;
      int64_t *f[5] = {&res->generated_code_bytes, &res->argument_bytes, &res->output_bytes, &res->alias_bytes,
                       &res->temp_bytes};
      for (int i = 0; i < 5; i++)
        *f[i] = (int64_t)le(body + 8 * i, 8);
    } else if (tag == CW_SECONDS) {
      char s[32];
      size_t n = len < sizeof s - 1 ? len : sizeof s - 1;
      memcpy(s, body, n);
      s[n] = 0;
      res->compile_seconds = strtod(s, NULL);
    } else if (tag == CW_PROGRAM) {
      const unsigned char *nul = memchr(body, 0, len);
      if (!nul)
        return err_set(err, VMEM_ERR_SYNTAX, 0, "the compiler's program came with no format"), VMEM_ERR_SYNTAX;
      bool with_config = strcmp((const char *)body, "hlo_with_config") == 0;
      if (!with_config && strcmp((const char *)body, "hlo") != 0)
        return err_set(err, VMEM_ERR_UNSUPPORTED, 0, "the compiler gave its program as \"%s\", not HLO",
                       (const char *)body),
               VMEM_ERR_UNSUPPORTED;
      cc_call *calls;
      size_t n, skip = (size_t)(nul + 1 - body);
      vmem_status st = cc_read_calls(nul + 1, len - skip, with_config, &box->a, &calls, &n, err);
      if (st != VMEM_OK)
        return st;
      vmem_compiled_kernel *k = n ? arena_calloc(&box->a, n, sizeof *k) : NULL;
      if (n && !k)
        return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
      for (size_t i = 0; i < n; i++)
        k[i] = (vmem_compiled_kernel){calls[i].name, calls[i].computation, calls[i].has_configs, calls[i].scoped_bytes,
                                      calls[i].body};
      res->kernels = k;
      res->nkernels = n;
    }
    done |= tag == CW_DONE;
  }
  if (r->timed_out) {
    res->status = VMEM_COMPILE_TIMEOUT;
    char msg[96];
    snprintf(msg, sizeof msg, "the compile ran past %.0f s and was stopped", r->seconds);
    res->error_text = arena_strndup(&box->a, msg, strlen(msg));
  } else if (!done) {
    res->status = VMEM_COMPILE_CRASHED;
    const char *words = last_words(&box->a, r);
    char msg[4096];
    if (WIFSIGNALED(r->wait_status))
      snprintf(msg, sizeof msg, "the compiler's process ended with signal %d (%s)%s%s", WTERMSIG(r->wait_status),
               strsignal(WTERMSIG(r->wait_status)), words && *words ? ": " : "", words ? words : "");
    else
      snprintf(msg, sizeof msg, "the compiler's process ended with status %d%s%s", WEXITSTATUS(r->wait_status),
               words && *words ? ": " : "", words ? words : "");
    res->error_text = arena_strndup(&box->a, msg, strlen(msg));
  }
  if (!res->error_text)
    return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
  return VMEM_OK;
}

vmem_status vmem_compile(vmem_compiler *c, const char *module, size_t len, const vmem_compile_options *opts,
                         vmem_compile_result **out, vmem_error *err) {
  vmem_error local;
  if (!err)
    err = &local;
  err_clear(err);
  if (out)
    *out = NULL;
  if (!c || !out || (!module && len))
    return err_set(err, VMEM_ERR_ARGUMENT, 0, "vmem_compile: a compiler, a module and a result are needed"),
           VMEM_ERR_ARGUMENT;
  if (len == 0 || !module)
    return err_set(err, VMEM_ERR_ARGUMENT, 0, "the module to compile is empty"), VMEM_ERR_ARGUMENT;
  const char *topo = topology_of(opts, err);
  if (!topo)
    return err->code;
  if (opts && opts->scoped_vmem_limit_kib < 0)
    return err_set(err, VMEM_ERR_RANGE, 0, "a scoped VMEM limit of %lld KiB", (long long)opts->scoped_vmem_limit_kib),
           VMEM_ERR_RANGE;
  const vmem_allocator *alloc = &c->a.alloc;
  pb_out options = {.alloc = alloc};
  cc_override limit = {"xla_tpu_scoped_vmem_limit_kib", opts ? opts->scoped_vmem_limit_kib : 0};
  if (!cc_compile_options(&options, uses_shardy(module, len), &limit, limit.value > 0)) {
    pb_out_free(&options);
    return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
  }
  cw_job job = {c->path, topo, module, len, options.buf, options.len};
  reply r = {0};
  double timeout = opts && opts->timeout_seconds > 0 ? opts->timeout_seconds : 300;
  bool ran = run_child(&job, timeout, alloc, &r, err);
  pb_out_free(&options);
  vmem_status st = ran ? VMEM_OK : err->code;
  result_box *box = NULL;
  if (ran) {
    arena a;
    arena_init(&a, alloc);
    box = arena_calloc(&a, 1, sizeof *box);
    if (!box) {
      arena_destroy(&a);
      st = VMEM_ERR_NOMEM;
      err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    } else {
      box->a = a;
      box->pub.status = VMEM_COMPILE_OK;
      box->pub.wall_seconds = r.seconds;
      box->pub.error_text = "";
      box->pub.topology = arena_strndup(&box->a, topo, strlen(topo));
      st = box->pub.topology ? read_reply(&r, box, opts && opts->target ? opts->target : NULL, err) : VMEM_ERR_NOMEM;
    }
  }
  vmem__free(alloc, r.buf);
  if (st != VMEM_OK) {
    vmem_compile_result_free(box ? &box->pub : NULL);
    return st;
  }
  *out = &box->pub;
  return VMEM_OK;
}

void vmem_compile_result_free(vmem_compile_result *r) {
  if (!r)
    return;
  result_box *box = (result_box *)(void *)((char *)r - offsetof(result_box, pub));
  arena a = box->a;
  arena_destroy(&a);
}
