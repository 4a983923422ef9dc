/*
 * The native stdio relay: the same program as ../stdio-relay.ts, in C, so that a wrapped
 * MCP server costs about 1 MB and a millisecond instead of a Node process (~40 MB, ~40 ms).
 *
 *   stdio-relay --channel <socket> --server <name> [--allow <json>] [--env-keep <json>]
 *               [--inherit <json>] [--cwd <dir>] -- <command> <args...>
 *   stdio-relay --source-sha256      (prints the SHA-256 of the source it was built from)
 *   stdio-relay ... [--spare <socket>]...   (try these spares before starting the server)
 *   stdio-relay --park <socket> [--env-keep <json>] [--inherit <json>] [--cwd <dir>]
 *               -- <command> <args...>
 *
 * A spare: `--park` starts the server ahead of any session and keeps it, untouched, for the
 * one relay that asks for it with `--spare <socket>` and would start exactly the same
 * process (same command, arguments, working folder and environment, compared byte for byte).
 * That relay receives the server's pipes (SCM_RIGHTS) and serves as if it had started the
 * server itself; the parked relay reaps the server and passes its exit status on. A relay
 * whose process would differ, or that finds no spare, starts its own server as ever.
 *
 * Same frames on the channel (channel-protocol.ts), same guarantees: bytes from the server
 * are forwarded unchanged and every line is mirrored first; client lines are checked by the
 * allow-list rule of channel-protocol.ts's vouchFor (reimplemented here, with JSON.parse's
 * grammar, last-key-wins objects and decoded keys) before the server sees them; exit code
 * and stderr pass through; the server gets only the `--inherit` variables plus the spec's
 * own (`--env-keep`); no channel, no server (exit 70). Built at install time by
 * build-relay.cjs with the machine's C compiler; without one, the Node relay is used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define STDERR_MIRROR_LIMIT (256 * 1024)
#define STDERR_TAIL_LIMIT (16 * 1024)
#define STOP_GRACE_MS 1500
#define MAX_DEPTH 20000
#define POLICY_DENIED_CODE "-32001"
/* The kit runs `--source-sha256` before first use: a binary that does not run on this
   machine, or that was built from another version of this file, is never used. */
#ifndef RELAY_SOURCE_SHA256
#define RELAY_SOURCE_SHA256 "unknown"
#endif

/* ---------- growable byte buffers ---------- */

typedef struct {
  char *data;
  size_t len, cap, off; /* off: bytes already consumed (queues) */
} buf_t;

static void buf_reserve(buf_t *b, size_t more) {
  if (b->len + more + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1) cap *= 2;
  char *data = realloc(b->data, cap);
  if (!data) {
    fputs("stdio-relay: out of memory\n", stderr);
    _exit(70);
  }
  b->data = data;
  b->cap = cap;
}
static void buf_add(buf_t *b, const char *s, size_t n) {
  buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}
static void buf_str(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }
static void buf_ch(buf_t *b, char c) { buf_add(b, &c, 1); }
static void buf_fmt(buf_t *b, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) buf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
static void buf_free(buf_t *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}
/* Drops the consumed prefix of a queue when it is worth it. */
static void buf_compact(buf_t *b) {
  if (b->off == b->len) {
    b->off = b->len = 0;
  } else if (b->off > 65536 && b->off * 2 > b->len) {
    memmove(b->data, b->data + b->off, b->len - b->off);
    b->len -= b->off;
    b->off = 0;
  }
}

/* ---------- UTF-8 ---------- */

/* Strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF), like Buffer's isUtf8. */
static int utf8_seq(const unsigned char *s, size_t n, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    if (i + 1 < n && (s[i + 1] & 0xc0) == 0x80) return 2;
    return 0;
  }
  if (c >= 0xe0 && c <= 0xef) {
    if (i + 2 >= n) return 0;
    unsigned char c1 = s[i + 1], c2 = s[i + 2];
    if ((c1 & 0xc0) != 0x80 || (c2 & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && c1 < 0xa0) return 0;
    if (c == 0xed && c1 >= 0xa0) return 0;
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (i + 3 >= n) return 0;
    unsigned char c1 = s[i + 1], c2 = s[i + 2], c3 = s[i + 3];
    if ((c1 & 0xc0) != 0x80 || (c2 & 0xc0) != 0x80 || (c3 & 0xc0) != 0x80) return 0;
    if (c == 0xf0 && c1 < 0x90) return 0;
    if (c == 0xf4 && c1 >= 0x90) return 0;
    return 4;
  }
  return 0;
}
static int is_utf8(const char *p, size_t n) {
  const unsigned char *s = (const unsigned char *)p;
  for (size_t i = 0; i < n;) {
    int k = utf8_seq(s, n, i);
    if (!k) return 0;
    i += (size_t)k;
  }
  return 1;
}
static void put_utf8(buf_t *b, uint32_t cp) {
  char o[4];
  if (cp < 0x80) {
    buf_ch(b, (char)cp);
  } else if (cp < 0x800) {
    o[0] = (char)(0xc0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3f));
    buf_add(b, o, 2);
  } else if (cp < 0x10000) { /* lone surrogates too (WTF-8): re-escaped on output */
    o[0] = (char)(0xe0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    buf_add(b, o, 3);
  } else {
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    buf_add(b, o, 4);
  }
}

/*
 * Appends `s` as a JSON string the way JSON.stringify writes one. `s` is UTF-8 (WTF-8 for
 * lone surrogates, written as \udxxx); with `lossy`, invalid bytes become U+FFFD, as
 * Buffer.toString("utf8") does for stderr.
 */
static void json_quote(buf_t *b, const char *p, size_t n, int lossy) {
  const unsigned char *s = (const unsigned char *)p;
  buf_ch(b, '"');
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c < 0x80) {
      switch (c) {
        case '"': buf_str(b, "\\\""); break;
        case '\\': buf_str(b, "\\\\"); break;
        case '\b': buf_str(b, "\\b"); break;
        case '\f': buf_str(b, "\\f"); break;
        case '\n': buf_str(b, "\\n"); break;
        case '\r': buf_str(b, "\\r"); break;
        case '\t': buf_str(b, "\\t"); break;
        default:
          if (c < 0x20) buf_fmt(b, "\\u%04x", c);
          else buf_ch(b, (char)c);
      }
      i++;
      continue;
    }
    if (c == 0xed && i + 2 < n && s[i + 1] >= 0xa0 && (s[i + 1] & 0xc0) == 0x80 &&
        (s[i + 2] & 0xc0) == 0x80 && !lossy) {
      uint32_t cp = ((uint32_t)(c & 0x0f) << 12) | ((uint32_t)(s[i + 1] & 0x3f) << 6) |
                    (s[i + 2] & 0x3f);
      buf_fmt(b, "\\u%04x", cp);
      i += 3;
      continue;
    }
    int k = utf8_seq(s, n, i);
    if (!k) {
      buf_str(b, "\xef\xbf\xbd");
      i++;
      continue;
    }
    buf_add(b, p + i, (size_t)k);
    i += (size_t)k;
  }
  buf_ch(b, '"');
}

static void base64(buf_t *b, const char *p, size_t n) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char *s = (const unsigned char *)p;
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    char o[4] = {t[s[i] >> 2], t[((s[i] & 3) << 4) | (s[i + 1] >> 4)],
                 t[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)], t[s[i + 2] & 63]};
    buf_add(b, o, 4);
  }
  if (n - i == 1) {
    char o[4] = {t[s[i] >> 2], t[(s[i] & 3) << 4], '=', '='};
    buf_add(b, o, 4);
  } else if (n - i == 2) {
    char o[4] = {t[s[i] >> 2], t[((s[i] & 3) << 4) | (s[i + 1] >> 4)], t[(s[i + 1] & 15) << 2],
                 '='};
    buf_add(b, o, 4);
  }
}

/* ---------- JSON (JSON.parse's grammar) ---------- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jval jval;
typedef struct {
  char *key; /* decoded, UTF-8/WTF-8 */
  size_t klen;
  jval *val;
} jmember;
struct jval {
  int type;
  size_t start, end; /* the value's span in the source */
  char *str;         /* J_STR: decoded */
  size_t slen;
  jval **items; /* J_ARR */
  jmember *members; /* J_OBJ */
  size_t count;
};

typedef struct {
  const unsigned char *s;
  size_t n, i;
  int latin1; /* the source is Latin-1 text (a line that was not UTF-8) */
  int depth;
  const char *error;
  size_t error_at;
} jparser;

static void jfree(jval *v) {
  if (!v) return;
  free(v->str);
  for (size_t k = 0; v->items && k < v->count; k++) jfree(v->items[k]);
  free(v->items);
  for (size_t k = 0; v->members && k < v->count; k++) {
    free(v->members[k].key);
    jfree(v->members[k].val);
  }
  free(v->members);
  free(v);
}

static int jfail(jparser *p, const char *what) {
  if (!p->error) {
    p->error = what;
    p->error_at = p->i;
  }
  return 0;
}
static void jws(jparser *p) {
  while (p->i < p->n) {
    unsigned char c = p->s[p->i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') p->i++;
    else break;
  }
}
static int hex4(jparser *p, uint32_t *out) {
  if (p->i + 4 > p->n) return jfail(p, "Bad Unicode escape");
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned char c = p->s[p->i + (size_t)k];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
    else return jfail(p, "Bad Unicode escape");
  }
  p->i += 4;
  *out = v;
  return 1;
}
/* Parses a string at p->i (on the quote); the decoded text goes to `out`. */
static int jstring(jparser *p, buf_t *out) {
  p->i++;
  while (1) {
    if (p->i >= p->n) return jfail(p, "Unterminated string in JSON");
    unsigned char c = p->s[p->i];
    if (c == '"') {
      p->i++;
      return 1;
    }
    if (c < 0x20) return jfail(p, "Bad control character in string literal");
    if (c == '\\') {
      p->i++;
      if (p->i >= p->n) return jfail(p, "Bad escaped character");
      unsigned char e = p->s[p->i++];
      switch (e) {
        case '"': buf_ch(out, '"'); break;
        case '\\': buf_ch(out, '\\'); break;
        case '/': buf_ch(out, '/'); break;
        case 'b': buf_ch(out, '\b'); break;
        case 'f': buf_ch(out, '\f'); break;
        case 'n': buf_ch(out, '\n'); break;
        case 'r': buf_ch(out, '\r'); break;
        case 't': buf_ch(out, '\t'); break;
        case 'u': {
          uint32_t cp;
          if (!hex4(p, &cp)) return 0;
          if (cp >= 0xd800 && cp <= 0xdbff && p->i + 6 <= p->n && p->s[p->i] == '\\' &&
              p->s[p->i + 1] == 'u') {
            size_t back = p->i;
            uint32_t lo;
            p->i += 2;
            if (hex4(p, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
              cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else {
              if (p->error) return 0;
              p->i = back;
            }
          }
          put_utf8(out, cp);
          break;
        }
        default:
          p->i--;
          return jfail(p, "Bad escaped character");
      }
      continue;
    }
    if (c >= 0x80 && p->latin1) {
      put_utf8(out, c);
      p->i++;
      continue;
    }
    buf_ch(out, (char)c);
    p->i++;
  }
}
static int jdigits(jparser *p) {
  size_t from = p->i;
  while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  return p->i > from;
}
static jval *jvalue(jparser *p);
static jval *jnew(jparser *p, int type) {
  jval *v = calloc(1, sizeof *v);
  if (!v) {
    fputs("stdio-relay: out of memory\n", stderr);
    _exit(70);
  }
  v->type = type;
  v->start = p->i;
  return v;
}
static jval *jvalue(jparser *p) {
  jws(p);
  if (p->i >= p->n) {
    jfail(p, "Unexpected end of JSON input");
    return NULL;
  }
  if (++p->depth > MAX_DEPTH) {
    jfail(p, "nested too deeply for the relay to read");
    return NULL;
  }
  unsigned char c = p->s[p->i];
  jval *v = NULL;
  if (c == '{') {
    v = jnew(p, J_OBJ);
    p->i++;
    jws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
      p->i++;
    } else {
      while (1) {
        jws(p);
        if (p->i >= p->n || p->s[p->i] != '"') {
          jfail(p, p->i >= p->n ? "Unexpected end of JSON input" : "Expected property name");
          goto bad;
        }
        buf_t key = {0};
        if (!jstring(p, &key)) {
          buf_free(&key);
          goto bad;
        }
        jws(p);
        if (p->i >= p->n || p->s[p->i] != ':') {
          buf_free(&key);
          jfail(p, "Expected ':' after property name");
          goto bad;
        }
        p->i++;
        jval *member = jvalue(p);
        if (!member) {
          buf_free(&key);
          goto bad;
        }
        jmember *grown = realloc(v->members, (v->count + 1) * sizeof *grown);
        if (!grown) _exit(70);
        v->members = grown;
        v->members[v->count].key = key.data ? key.data : calloc(1, 1);
        v->members[v->count].klen = key.len;
        v->members[v->count].val = member;
        v->count++;
        jws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
          p->i++;
          continue;
        }
        if (p->i < p->n && p->s[p->i] == '}') {
          p->i++;
          break;
        }
        jfail(p, p->i >= p->n ? "Unexpected end of JSON input"
                              : "Expected ',' or '}' after property value");
        goto bad;
      }
    }
  } else if (c == '[') {
    v = jnew(p, J_ARR);
    p->i++;
    jws(p);
    if (p->i < p->n && p->s[p->i] == ']') {
      p->i++;
    } else {
      while (1) {
        jval *item = jvalue(p);
        if (!item) goto bad;
        jval **grown = realloc(v->items, (v->count + 1) * sizeof *grown);
        if (!grown) _exit(70);
        v->items = grown;
        v->items[v->count++] = item;
        jws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
          p->i++;
          continue;
        }
        if (p->i < p->n && p->s[p->i] == ']') {
          p->i++;
          break;
        }
        jfail(p, p->i >= p->n ? "Unexpected end of JSON input"
                              : "Expected ',' or ']' after array element");
        goto bad;
      }
    }
  } else if (c == '"') {
    v = jnew(p, J_STR);
    buf_t text = {0};
    if (!jstring(p, &text)) {
      buf_free(&text);
      goto bad;
    }
    v->str = text.data ? text.data : calloc(1, 1);
    v->slen = text.len;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    v = jnew(p, J_NUM);
    if (c == '-') p->i++;
    if (p->i < p->n && p->s[p->i] == '0') {
      p->i++;
    } else if (!jdigits(p)) {
      jfail(p, "No number after minus sign in JSON");
      goto bad;
    }
    if (p->i < p->n && p->s[p->i] == '.') {
      p->i++;
      if (!jdigits(p)) {
        jfail(p, "Unterminated fractional number in JSON");
        goto bad;
      }
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
      p->i++;
      if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
      if (!jdigits(p)) {
        jfail(p, "Exponent part is missing a number in JSON");
        goto bad;
      }
    }
  } else {
    static const struct {
      const char *word;
      int type;
    } words[] = {{"true", J_BOOL}, {"false", J_BOOL}, {"null", J_NULL}};
    for (size_t k = 0; k < 3; k++) {
      size_t len = strlen(words[k].word);
      if (p->i + len <= p->n && memcmp(p->s + p->i, words[k].word, len) == 0) {
        v = jnew(p, words[k].type);
        p->i += len;
        break;
      }
    }
    if (!v) {
      jfail(p, "Unexpected token");
      p->depth--;
      return NULL;
    }
  }
  v->end = p->i;
  p->depth--;
  return v;
bad:
  jfree(v);
  p->depth--;
  return NULL;
}
/* JSON.parse(text): the whole text must be one value (whitespace around it allowed). */
static jval *jparse(const char *s, size_t n, int latin1, const char **error, size_t *error_at) {
  jparser p = {(const unsigned char *)s, n, 0, latin1, 0, NULL, 0};
  jval *v = jvalue(&p);
  if (v) {
    jws(&p);
    if (p.i < p.n) {
      jfail(&p, "Unexpected non-whitespace character after JSON");
      jfree(v);
      v = NULL;
    }
  }
  if (!v && error) {
    *error = p.error ? p.error : "Unexpected token";
    *error_at = p.error_at;
  }
  return v;
}
/* obj[key], the last member of that name (JSON.parse keeps the last duplicate). */
static jval *jget(const jval *obj, const char *key) {
  if (!obj || obj->type != J_OBJ) return NULL;
  size_t len = strlen(key);
  for (size_t k = obj->count; k-- > 0;) {
    if (obj->members[k].klen == len && memcmp(obj->members[k].key, key, len) == 0)
      return obj->members[k].val;
  }
  return NULL;
}
static int jstr_is(const jval *v, const char *s) {
  return v && v->type == J_STR && v->slen == strlen(s) && memcmp(v->str, s, v->slen) == 0;
}
static int answerable_id(const jval *item) {
  const jval *id = jget(item, "id");
  return id && (id->type == J_STR || id->type == J_NUM);
}

/* ---------- the relay's state ---------- */

static const char *server_name;
static char **allowed;
static size_t *allowed_len;
static size_t allowed_count;
static int has_policy;

static int channel_fd = -1, channel_up = 0;
static buf_t channel_out, child_in_out;
static int child_in = -1, child_out = -1, child_err = -1;
static int child_in_close_pending = 0;
static pid_t child_pid = -1;
static int sig_pipe[2] = {-1, -1};
static double origin_ms, mono_origin;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return origin_ms + (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6) - mono_origin;
}
static double mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Writes all of `s` to a blocking-style fd (stdout, stderr), as a direct server would. */
static void write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w > 0) {
      s += w;
      n -= (size_t)w;
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && errno == EAGAIN) {
      struct pollfd one = {fd, POLLOUT, 0};
      poll(&one, 1, 100);
    } else {
      return; /* the reader is gone: drop, as the Node relay does */
    }
  }
}

/* Sends as much of a queue as the non-blocking fd takes now; -1 when the fd is broken. */
static int drain(int fd, buf_t *q) {
  while (q->off < q->len) {
    ssize_t w = write(fd, q->data + q->off, q->len - q->off);
    if (w > 0) {
      q->off += (size_t)w;
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && errno == EAGAIN) {
      break;
    } else {
      q->off = q->len = 0;
      return -1;
    }
  }
  buf_compact(q);
  return 0;
}

static void drop_channel(void) {
  if (channel_fd >= 0) close(channel_fd);
  channel_fd = -1;
  channel_up = 0;
  buf_free(&channel_out);
}
/* Queues one frame (a JSON object without its newline) on the channel. */
static void send_frame(buf_t *frame) {
  if (channel_up) {
    buf_add(&channel_out, frame->data, frame->len);
    buf_ch(&channel_out, '\n');
    if (drain(channel_fd, &channel_out) < 0) drop_channel();
  }
  frame->len = 0;
}
static void frame_head(buf_t *f, const char *type) {
  f->len = 0;
  buf_str(f, "{\"t\":\"");
  buf_str(f, type);
  buf_str(f, "\"");
}
static void frame_at(buf_t *f) { buf_fmt(f, ",\"at\":%.3f", now_ms()); }

static void send_msg(const char *dir, const char *line, size_t n, const char *origin) {
  buf_t f = {0};
  frame_head(&f, "msg");
  buf_str(&f, ",\"d\":\"");
  buf_str(&f, dir);
  buf_str(&f, "\"");
  frame_at(&f);
  buf_str(&f, ",\"raw\":");
  if (is_utf8(line, n)) {
    json_quote(&f, line, n, 0);
    if (origin) {
      buf_str(&f, ",\"origin\":\"");
      buf_str(&f, origin);
      buf_str(&f, "\"");
    }
  } else {
    buf_ch(&f, '"');
    base64(&f, line, n);
    buf_str(&f, "\",\"invalidUtf8\":true");
  }
  buf_ch(&f, '}');
  send_frame(&f);
  buf_free(&f);
}

/* ---------- the allow-list rule (channel-protocol.ts's vouchFor) ---------- */

static int tool_allowed(const char *tool, size_t n) {
  for (size_t k = 0; k < allowed_count; k++)
    if (allowed_len[k] == n && memcmp(allowed[k], tool, n) == 0) return 1;
  return 0;
}

/* A raw line separator some servers split on: CR, VT, FF, FS, GS, RS, NEL, U+2028, U+2029. */
static size_t separator_at(const unsigned char *s, size_t n, size_t i, int latin1) {
  unsigned char c = s[i];
  if (c == '\r' || c == 0x0b || c == 0x0c || (c >= 0x1c && c <= 0x1e)) return 1;
  if (latin1) return c == 0x85 ? 1 : 0;
  if (c == 0xc2 && i + 1 < n && s[i + 1] == 0x85) return 2;
  if (c == 0xe2 && i + 2 < n && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
    return 3;
  return 0;
}
static int has_separator(const char *p, size_t n, int latin1) {
  for (size_t i = 0; i < n; i++)
    if (separator_at((const unsigned char *)p, n, i, latin1)) return 1;
  return 0;
}

/* The tool call in `item` (readCall), appended to `calls` as a RefusedCall; 0 if none. */
static int add_call(buf_t *calls, const jval *item, const char *src, int latin1) {
  if (!item || item->type != J_OBJ || !jstr_is(jget(item, "method"), "tools/call")) return 0;
  const jval *params = jget(item, "params");
  const jval *name = params && params->type == J_OBJ ? jget(params, "name") : NULL;
  const jval *args = params && params->type == J_OBJ ? jget(params, "arguments") : NULL;
  if (calls->len > 0) buf_ch(calls, ',');
  buf_str(calls, "{\"tool\":");
  if (name && name->type == J_STR) json_quote(calls, name->str, name->slen, 0);
  else buf_str(calls, "\"\"");
  if (args) {
    buf_str(calls, ",\"arguments\":");
    if (latin1) { /* the span is Latin-1 JSON: carry it over as UTF-8 */
      for (size_t k = args->start; k < args->end; k++)
        put_utf8(calls, (unsigned char)src[k]);
    } else {
      buf_add(calls, src + args->start, args->end - args->start);
    }
  }
  buf_ch(calls, '}');
  return 1;
}

/* callsInFragments: the calls in each piece between separators, from its first [ or {. */
static void calls_in_fragments(buf_t *calls, const char *p, size_t n, int latin1) {
  const unsigned char *s = (const unsigned char *)p;
  size_t from = 0;
  for (size_t i = 0; i <= n;) {
    size_t sep = i < n ? separator_at(s, n, i, latin1) : 1;
    if (!sep) {
      i++;
      continue;
    }
    size_t start = from;
    while (start < i && s[start] != '[' && s[start] != '{') start++;
    if (start < i) {
      jval *v = jparse(p + start, i - start, latin1, NULL, NULL);
      if (v) {
        const char *src = p + start;
        if (v->type == J_ARR)
          for (size_t k = 0; k < v->count; k++) add_call(calls, v->items[k], src, latin1);
        else add_call(calls, v, src, latin1);
        jfree(v);
      }
    }
    i += sep;
    from = i;
  }
}

/* A JSON number as JavaScript prints it (JSON.stringify(Number(text))). */
static void js_number(buf_t *b, const char *text, size_t n) {
  char tmp[512];
  size_t len = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
  memcpy(tmp, text, len);
  tmp[len] = 0;
  double x = strtod(tmp, NULL);
  if (!isfinite(x)) {
    buf_str(b, "null");
    return;
  }
  if (x == 0) {
    buf_ch(b, '0');
    return;
  }
  char digits[40];
  int exp10 = 0;
  for (int precision = 1; precision <= 17; precision++) {
    char e[64];
    snprintf(e, sizeof e, "%.*e", precision - 1, x);
    if (strtod(e, NULL) == x || precision == 17) {
      char *mark = strchr(e, 'e');
      exp10 = atoi(mark + 1);
      size_t d = 0;
      for (char *q = e; q < mark; q++)
        if (*q >= '0' && *q <= '9') digits[d++] = *q;
      while (d > 1 && digits[d - 1] == '0') d--;
      digits[d] = 0;
      break;
    }
  }
  int k = (int)strlen(digits), point = exp10 + 1;
  if (x < 0) buf_ch(b, '-');
  if (k <= point && point <= 21) {
    buf_str(b, digits);
    for (int z = k; z < point; z++) buf_ch(b, '0');
  } else if (0 < point && point <= 21) {
    buf_add(b, digits, (size_t)point);
    buf_ch(b, '.');
    buf_str(b, digits + point);
  } else if (-6 < point && point <= 0) {
    buf_str(b, "0.");
    for (int z = 0; z < -point; z++) buf_ch(b, '0');
    buf_str(b, digits);
  } else {
    buf_ch(b, digits[0]);
    if (k > 1) {
      buf_ch(b, '.');
      buf_str(b, digits + 1);
    }
    buf_fmt(b, "e%c%d", point - 1 >= 0 ? '+' : '-', abs(point - 1));
  }
}

static void reply_for(buf_t *r, const jval *item, const char *src, const char *message_prefix,
                      const char *message, size_t mlen) {
  const jval *id = jget(item, "id");
  if (r->len > 0 && r->data[r->len - 1] == '}') buf_ch(r, ',');
  buf_str(r, "{\"jsonrpc\":\"2.0\",\"id\":");
  if (id->type == J_STR) json_quote(r, id->str, id->slen, 0);
  else js_number(r, src + id->start, id->end - id->start);
  buf_str(r, ",\"error\":{\"code\":" POLICY_DENIED_CODE ",\"message\":");
  buf_t text = {0};
  buf_str(&text, message_prefix);
  buf_add(&text, message, mlen);
  json_quote(r, text.data, text.len, 0);
  buf_free(&text);
  buf_str(r, "}}");
}
static void denied_message(buf_t *m, const jval *item) {
  const jval *params = jget(item, "params");
  const jval *name = params && params->type == J_OBJ ? jget(params, "name") : NULL;
  m->len = 0;
  buf_str(m, "Tool \"");
  if (name && name->type == J_STR) buf_add(m, name->str, name->slen);
  buf_str(m, "\" on server \"");
  buf_str(m, server_name);
  buf_str(m, "\" is denied by the test's tool policy (not in the session's allow-list). "
             "The call did not reach the server.");
}
static int is_denied_call(const jval *item) {
  if (!item || item->type != J_OBJ || !jstr_is(jget(item, "method"), "tools/call")) return 0;
  const jval *params = jget(item, "params");
  const jval *name = params && params->type == J_OBJ ? jget(params, "name") : NULL;
  if (name && name->type == J_STR) return !tool_allowed(name->str, name->slen);
  return !tool_allowed("", 0);
}

/* Sends the policy's answer to the client: mirrored as from_server, origin policy. */
static void answer_client(buf_t *reply) {
  send_msg("from_server", reply->data, reply->len, "policy");
  buf_ch(reply, '\n');
  write_all(1, reply->data, reply->len);
}
static void send_refused(const char *reason, buf_t *calls) {
  buf_t f = {0};
  frame_head(&f, "refused");
  frame_at(&f);
  buf_str(&f, ",\"reason\":");
  json_quote(&f, reason, strlen(reason), 0);
  buf_str(&f, ",\"calls\":[");
  if (calls->len) buf_add(&f, calls->data, calls->len);
  buf_str(&f, "]}");
  send_frame(&f);
  buf_free(&f);
}

static const char *SEPARATOR_REASON =
    "the payload holds a raw line separator (CR, VT, FF, U+2028...) that a server may split on";
static const char *NO_ID_REASON =
    "a tools/call carries no id the capture can answer (absent, null, or not a string or number)";

/* Returns 1 to forward the line; otherwise the relay has answered and recorded it. */
static int vouch(const char *line, size_t n) {
  if (!has_policy) return 1;
  const char *error = NULL;
  size_t error_at = 0;
  jval *value = jparse(line, n, 0, &error, &error_at);
  if (!value) {
    buf_t reason = {0}, calls = {0};
    if (has_separator(line, n, 0)) {
      buf_str(&reason, SEPARATOR_REASON);
    } else {
      buf_str(&reason, "the payload is not JSON (");
      buf_str(&reason, error);
      if (strcmp(error, "Unexpected end of JSON input") != 0)
        buf_fmt(&reason, " at position %zu", error_at);
      buf_str(&reason, "), so the capture cannot tell whether it calls a tool");
    }
    calls_in_fragments(&calls, line, n, 0);
    send_refused(reason.data, &calls);
    buf_free(&reason);
    buf_free(&calls);
    return 0;
  }
  int batch = value->type == J_ARR;
  jval *single[1] = {value};
  jval **items = batch ? value->items : single;
  size_t count = batch ? value->count : 1;
  buf_t calls = {0}, reply = {0}, message = {0};
  for (size_t k = 0; k < count; k++)
    if (!answerable_id(items[k])) add_call(&calls, items[k], line, 0);
  int separator = has_separator(line, n, 0);
  int forward = 1;
  if (separator || calls.len > 0) {
    const char *reason = separator ? SEPARATOR_REASON : NO_ID_REASON;
    size_t replies = 0;
    if (batch) buf_ch(&reply, '[');
    for (size_t k = 0; k < count; k++) {
      if (!answerable_id(items[k])) continue;
      if (items[k]->type == J_OBJ && jstr_is(jget(items[k], "method"), "tools/call")) {
        denied_message(&message, items[k]);
      } else {
        message.len = 0;
        buf_str(&message, "Refused by the test's wire capture: ");
        buf_str(&message, reason);
        buf_str(&message, ". Nothing of it was sent to server \"");
        buf_str(&message, server_name);
        buf_str(&message, "\".");
      }
      reply_for(&reply, items[k], line, "", message.data, message.len);
      replies++;
    }
    if (batch) buf_ch(&reply, ']');
    /* With no call to report and an answer to send, the answer alone records it. */
    if (calls.len > 0 || replies == 0) send_refused(reason, &calls);
    if (replies > 0) answer_client(&reply);
    forward = 0;
  } else {
    int denied = 0;
    for (size_t k = 0; k < count; k++) denied |= is_denied_call(items[k]);
    if (denied) {
      if (batch) buf_ch(&reply, '[');
      for (size_t k = 0; k < count; k++) {
        if (!answerable_id(items[k])) continue;
        if (is_denied_call(items[k])) {
          denied_message(&message, items[k]);
        } else {
          message.len = 0;
          buf_str(&message, "Refused: this JSON-RPC batch also calls a tool the test's tool "
                            "policy denies, so none of it was sent to server \"");
          buf_str(&message, server_name);
          buf_str(&message, "\".");
        }
        reply_for(&reply, items[k], line, "", message.data, message.len);
      }
      if (batch) buf_ch(&reply, ']');
      answer_client(&reply);
      forward = 0;
    }
  }
  buf_free(&calls);
  buf_free(&reply);
  buf_free(&message);
  jfree(value);
  return forward;
}

/* ---------- forwarding ---------- */

static void to_child(const char *s, size_t n) {
  if (child_in < 0 || child_in_close_pending) return;
  buf_add(&child_in_out, s, n);
  if (drain(child_in, &child_in_out) < 0) {
    close(child_in);
    child_in = -1;
  }
}

/* One complete client line (without its newline and a trailing CR) and its terminator. */
static void forward_line(const char *line, size_t n, const char *terminator) {
  if (!is_utf8(line, n)) {
    send_msg("to_server", line, n, NULL);
    if (has_policy) {
      buf_t calls = {0};
      calls_in_fragments(&calls, line, n, 1);
      send_refused("the line is not valid UTF-8", &calls);
      buf_free(&calls);
      return;
    }
    to_child(line, n);
    to_child(terminator, strlen(terminator));
    return;
  }
  send_msg("to_server", line, n, NULL);
  if (!vouch(line, n)) return;
  to_child(line, n);
  to_child(terminator, strlen(terminator));
}

/* Feeds bytes into a line buffer; calls `each` for every complete line. */
static void split_lines(buf_t *pending, const char *chunk, size_t n,
                        void (*each)(const char *, size_t)) {
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (chunk[i] != '\n') continue;
    const char *line;
    size_t len;
    if (pending->len > 0) {
      buf_add(pending, chunk + start, i - start);
      line = pending->data;
      len = pending->len;
    } else {
      line = chunk + start;
      len = i - start;
    }
    if (len > 0 && line[len - 1] == '\r') len--;
    each(line, len);
    pending->len = 0;
    start = i + 1;
  }
  if (start < n) buf_add(pending, chunk + start, n - start);
}
static void client_line(const char *line, size_t n) { forward_line(line, n, "\n"); }
static void server_line(const char *line, size_t n) { send_msg("from_server", line, n, NULL); }

/* ---------- arguments ---------- */

static char **string_array(const char *json, size_t **lengths, size_t *count, const char *flag) {
  jval *v = jparse(json, strlen(json), 0, NULL, NULL);
  if (!v || v->type != J_ARR) {
    fprintf(stderr, "stdio-relay: %s must be a JSON array of strings\n", flag);
    exit(2);
  }
  char **out = calloc(v->count + 1, sizeof *out);
  *lengths = calloc(v->count + 1, sizeof **lengths);
  for (size_t k = 0; k < v->count; k++) {
    if (v->items[k]->type != J_STR) {
      fprintf(stderr, "stdio-relay: %s must be a JSON array of strings\n", flag);
      exit(2);
    }
    out[k] = malloc(v->items[k]->slen + 1);
    memcpy(out[k], v->items[k]->str, v->items[k]->slen + 1);
    (*lengths)[k] = v->items[k]->slen;
  }
  *count = v->count;
  jfree(v);
  return out;
}

static const char *signal_name(int sig) {
  static const struct {
    int sig;
    const char *name;
  } names[] = {{SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
               {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
               {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
               {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
               {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
               {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"},
               {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},
               {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
               {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
               {SIGIO, "SIGIO"},     {SIGSYS, "SIGSYS"}};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (names[k].sig == sig) return names[k].name;
  return NULL;
}
static const char *errno_name(int e) {
  switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOTDIR: return "ENOTDIR";
    case ENOEXEC: return "ENOEXEC";
    case E2BIG: return "E2BIG";
    case ENOMEM: return "ENOMEM";
    case ELOOP: return "ELOOP";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case EPERM: return "EPERM";
    default: return NULL;
  }
}

static void on_signal(int sig) {
  int saved = errno;
  unsigned char c = (unsigned char)sig;
  if (write(sig_pipe[1], &c, 1) < 0) { /* the pipe is full: the loop is awake anyway */
  }
  errno = saved;
}

static void nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }
static void cloexec(int fd) { fcntl(fd, F_SETFD, FD_CLOEXEC); }
/* pipe2(O_CLOEXEC) where there is none (macOS); the relay has one thread, so no race. */
static int cloexec_pipe(int ends[2]) {
  if (pipe(ends) != 0) return -1;
  cloexec(ends[0]);
  cloexec(ends[1]);
  return 0;
}

/* ---------- spares: a server started ahead, handed to one relay ---------- */

/* What makes two server processes the same: working folder, command line, environment. */
static void spare_key(buf_t *key, const char *dir, char **target, char **env) {
  buf_add(key, dir, strlen(dir) + 1);
  for (char **arg = target; *arg; arg++) buf_add(key, *arg, strlen(*arg) + 1);
  buf_ch(key, '\1');
  for (char **entry = env; *entry; entry++) buf_add(key, *entry, strlen(*entry) + 1);
}

static int unix_socket_at(const char *path, struct sockaddr_un *addr) {
  if (strlen(path) >= sizeof addr->sun_path) return -1;
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  strcpy(addr->sun_path, path);
  return socket(AF_UNIX, SOCK_STREAM, 0);
}

static int read_full(int fd, void *into, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)into + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

/* The message that hands a server on: 'Y', its pid, and (as SCM_RIGHTS) its three pipes. */
typedef struct {
  char answer;
  int32_t pid;
  struct iovec parts[2];
  union {
    struct cmsghdr align;
    char space[CMSG_SPACE(3 * sizeof(int))];
  } control;
  struct msghdr msg;
} handover_t;

static void handover_init(handover_t *h, char answer, pid_t pid) {
  memset(h, 0, sizeof *h);
  h->answer = answer;
  h->pid = (int32_t)pid;
  h->parts[0] = (struct iovec){&h->answer, 1};
  h->parts[1] = (struct iovec){&h->pid, sizeof h->pid};
  h->msg.msg_iov = h->parts;
  h->msg.msg_iovlen = 2;
  h->msg.msg_control = h->control.space;
  h->msg.msg_controllen = sizeof h->control.space;
}

/* Asks the spare at `path` for its server; on a match fills pid and the pipes (in, out,
   err) and returns the socket the exit status will come on, else -1 (start one's own). */
static int attach_spare(const char *path, const buf_t *key, pid_t *pid, int fds[3]) {
  struct sockaddr_un addr;
  int fd = unix_socket_at(path, &addr);
  if (fd < 0) return -1;
  struct timeval wait = {2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  uint32_t len = (uint32_t)key->len;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  write_all(fd, (const char *)&len, sizeof len);
  write_all(fd, key->data, key->len);
  handover_t h;
  handover_init(&h, 0, -1);
  ssize_t r;
  do r = recvmsg(fd, &h.msg, MSG_WAITALL);
  while (r < 0 && errno == EINTR);
  struct cmsghdr *c = CMSG_FIRSTHDR(&h.msg);
  if (r != 1 + (ssize_t)sizeof h.pid || h.answer != 'Y' || !c || c->cmsg_type != SCM_RIGHTS ||
      c->cmsg_len != CMSG_LEN(3 * sizeof(int))) {
    if (c && c->cmsg_type == SCM_RIGHTS) {
      int *got = (int *)CMSG_DATA(c);
      for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) close(got[k]);
    }
    close(fd);
    return -1;
  }
  memcpy(fds, CMSG_DATA(c), 3 * sizeof(int));
  for (int k = 0; k < 3; k++) cloexec(fds[k]);
  struct timeval forever = {0, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &forever, sizeof forever);
  cloexec(fd);
  *pid = h.pid;
  return fd;
}

/* Starts `target` with pipes on its stdio; 0 with pid and fds (in, out, err), or the errno. */
static int start_server(const char *cwd, char **target, char **env, pid_t *pid, int fds[3]) {
  *pid = -1;
  int in_pipe[2], out_pipe[2], err_pipe[2], exec_pipe[2];
  if (cloexec_pipe(in_pipe) || cloexec_pipe(out_pipe) || cloexec_pipe(err_pipe) ||
      cloexec_pipe(exec_pipe))
    return errno ? errno : EMFILE;
  *pid = fork();
  if (*pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    int failed = 0;
    if (cwd && chdir(cwd) != 0) failed = errno;
    if (!failed) {
      environ = env;
      execvp(target[0], target);
      failed = errno;
    }
    if (write(exec_pipe[1], &failed, sizeof failed) < 0) _exit(127);
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  int exec_error = 0;
  if (*pid < 0) {
    exec_error = errno;
  } else {
    ssize_t r;
    do r = read(exec_pipe[0], &exec_error, sizeof exec_error);
    while (r < 0 && errno == EINTR);
    if (r <= 0) exec_error = 0;
  }
  close(exec_pipe[0]);
  fds[0] = in_pipe[1];
  fds[1] = out_pipe[0];
  fds[2] = err_pipe[0];
  return exec_error;
}

/* --park: start the server now, say `ready <pid>` on stdout, and hand it to the one relay
   whose key matches; until then the kit's end of stdin closing (the kit is gone), or a
   signal, stops it. Afterwards: reap the server and send its status (code, signal). */
static int park(const char *path, const char *cwd, const char *dir, char **target,
                char **env) {
  pid_t pid;
  int fds[3];
  int failed = start_server(cwd, target, env, &pid, fds);
  if (failed) {
    if (pid > 0) waitpid(pid, NULL, 0);
    printf("failed %s\n", errno_name(failed) ? errno_name(failed) : strerror(failed));
    return 127;
  }
  buf_t key = {0};
  spare_key(&key, dir, target, env);
  struct sockaddr_un addr;
  int listener = unix_socket_at(path, &addr);
  unlink(path);
  if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
      chmod(path, 0600) != 0 || listen(listener, 4) != 0) {
    printf("failed %s\n", strerror(errno));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 70;
  }
  cloexec(listener);
  printf("ready %d\n", (int)pid);
  fflush(stdout);
  int handed = -1, stdin_open = 1, status = 0, done = 0;
  while (!done) {
    struct pollfd p[3] = {{sig_pipe[0], POLLIN, 0}, {listener, POLLIN, 0}, {0, POLLIN, 0}};
    int n = handed >= 0 ? 1 : (stdin_open ? 3 : 2);
    if (poll(p, (nfds_t)n, -1) < 0 && errno != EINTR) break;
    if (p[0].revents & POLLIN) {
      unsigned char sigs[64];
      ssize_t r = read(sig_pipe[0], sigs, sizeof sigs);
      for (ssize_t k = 0; k < r; k++)
        if (sigs[k] != SIGCHLD) kill(pid, handed >= 0 ? sigs[k] : SIGKILL);
      if (waitpid(pid, &status, WNOHANG) == pid) done = 1;
    }
    if (done || handed >= 0) continue;
    if (n > 2 && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) {
      char drop[256];
      if (read(0, drop, sizeof drop) <= 0) { /* the kit is gone: no one will ask for it */
        stdin_open = 0;
        kill(pid, SIGKILL);
      }
    }
    if (!(p[1].revents & POLLIN)) continue;
    int asker = accept(listener, NULL, NULL);
    if (asker < 0) continue;
    struct timeval wait = {2, 0};
    setsockopt(asker, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    uint32_t len = 0;
    buf_t theirs = {0};
    int same = 0;
    if (read_full(asker, &len, sizeof len) == 0 && len == key.len) {
      buf_reserve(&theirs, len);
      same = read_full(asker, theirs.data, len) == 0 && memcmp(theirs.data, key.data, len) == 0;
    }
    buf_free(&theirs);
    if (!same) { /* another process than this one: the asker starts its own */
      char no = 'N';
      if (write(asker, &no, 1) < 0) { /* it went away */
      }
      close(asker);
      continue;
    }
    handover_t h;
    handover_init(&h, 'Y', pid);
    struct cmsghdr *c = CMSG_FIRSTHDR(&h.msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(3 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
    if (sendmsg(asker, &h.msg, MSG_NOSIGNAL) != 1 + (ssize_t)sizeof h.pid) {
      close(asker);
      continue;
    }
    /* Handed on: the asker holds the only ends now, so the server sees its client alone. */
    for (int k = 0; k < 3; k++) close(fds[k]);
    close(listener);
    unlink(path);
    handed = asker;
  }
  if (!done) waitpid(pid, &status, 0);
  if (handed >= 0) {
    int32_t how[2] = {WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                      WIFSIGNALED(status) ? WTERMSIG(status) : 0};
    write_all(handed, (const char *)how, sizeof how);
    close(handed);
  } else {
    unlink(path);
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *channel = NULL, *allow = NULL, *keep = NULL, *inherit = NULL, *cwd = NULL;
  const char *park_at = NULL, *spares[8];
  int spare_count = 0;
  int split = -1;
  if (argc == 2 && strcmp(argv[1], "--source-sha256") == 0) {
    puts(RELAY_SOURCE_SHA256);
    return 0;
  }
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--") == 0) {
      split = k;
      break;
    }
    const char *value = k + 1 < argc ? argv[k + 1] : NULL;
    if (strcmp(argv[k], "--channel") == 0) channel = value;
    else if (strcmp(argv[k], "--server") == 0) server_name = value;
    else if (strcmp(argv[k], "--allow") == 0) allow = value;
    else if (strcmp(argv[k], "--env-keep") == 0) keep = value;
    else if (strcmp(argv[k], "--inherit") == 0) inherit = value;
    else if (strcmp(argv[k], "--cwd") == 0) cwd = value;
    else if (strcmp(argv[k], "--park") == 0) park_at = value;
    else if (strcmp(argv[k], "--spare") == 0) {
      if (spare_count < 8 && value) spares[spare_count++] = value;
    }
    else continue;
    k++;
  }
  if ((!park_at && (!channel || !server_name)) || split < 0 || split + 1 >= argc) {
    fputs("stdio-relay: usage: stdio-relay --channel <socket> --server <name> [--allow <json "
          "array>] -- <command> [args...]\n",
          stderr);
    return 2;
  }
  char **target = argv + split + 1;
  if (allow) {
    allowed = string_array(allow, &allowed_len, &allowed_count, "--allow");
    has_policy = 1;
  }
  {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    origin_ms = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
    mono_origin = mono_ms();
  }

  if (!park_at) {
    /* The server starts only once the kit listens: a relay that cannot report would forward
       calls no one sees, and a test could then pass on evidence that was never collected. */
    channel_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    int reach = -1;
    const char *why = NULL;
    if (strlen(channel) >= sizeof addr.sun_path) {
      why = "the socket path is too long";
    } else if (channel_fd >= 0) {
      strcpy(addr.sun_path, channel);
      reach = connect(channel_fd, (struct sockaddr *)&addr, sizeof addr);
    }
    if (reach != 0) {
      buf_t quoted = {0}, name = {0};
      json_quote(&quoted, channel, strlen(channel), 1);
      json_quote(&name, server_name, strlen(server_name), 1);
      fprintf(stderr,
              "stdio-relay: cannot reach the test kit's channel %s (connect %s %s); not starting "
              "server %s, since its calls could not be recorded. Is the kit (or the session) that "
              "wrapped this server still open?\n",
              quoted.data, why ? why : (errno_name(errno) ? errno_name(errno) : strerror(errno)),
              channel, name.data);
      return 70;
    }
    channel_up = 1;
    cloexec(channel_fd);
    nonblocking(channel_fd);
  }

  /* The server's folder, as it starts in it: also what a spare must match. */
  char here[4096];
  const char *server_dir = cwd ? cwd : (getcwd(here, sizeof here) ? here : "");
  size_t *inherit_len = NULL, inherit_count = 0;
  char **inherited = inherit ? string_array(inherit, &inherit_len, &inherit_count, "--inherit")
                             : calloc(1, sizeof(char *));
  /* The server's environment: the inherited allow-list and the spec's own variables. */
  char **env = environ;
  if (keep) {
    size_t *keep_len, keep_count = 0;
    char **kept = string_array(keep, &keep_len, &keep_count, "--env-keep");
    env = calloc(inherit_count + keep_count + 1, sizeof *env);
    size_t e = 0;
    char **names[2] = {inherited, kept};
    size_t counts[2] = {inherit_count, keep_count};
    for (int list = 0; list < 2; list++) {
      for (size_t k = 0; k < counts[list]; k++) {
        const char *value = getenv(names[list][k]);
        if (!value) continue;
        size_t nlen = strlen(names[list][k]);
        size_t found = e;
        for (size_t j = 0; j < e; j++)
          if (strncmp(env[j], names[list][k], nlen) == 0 && env[j][nlen] == '=') found = j;
        char *entry = malloc(nlen + strlen(value) + 2);
        sprintf(entry, "%s=%s", names[list][k], value);
        env[found] = entry;
        if (found == e) e++;
      }
    }
    env[e] = NULL;
  }

  if (cloexec_pipe(sig_pipe) != 0) return 70;
  nonblocking(sig_pipe[0]);
  nonblocking(sig_pipe[1]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGCHLD, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  if (park_at) return park(park_at, cwd, server_dir, target, env);

  /* A spare started ahead for exactly this process, else the relay's own server. */
  int fds[3] = {-1, -1, -1}, spare_fd = -1, spare_taken = -1, exec_error = 0;
  if (spare_count > 0) {
    buf_t key = {0};
    spare_key(&key, server_dir, target, env);
    for (int k = 0; k < spare_count && spare_fd < 0; k++) {
      spare_fd = attach_spare(spares[k], &key, &child_pid, fds);
      spare_taken = k;
    }
    buf_free(&key);
  }
  if (spare_fd < 0) exec_error = start_server(cwd, target, env, &child_pid, fds);
  child_in = fds[0];
  child_out = fds[1];
  child_err = fds[2];
  nonblocking(child_in);

  buf_t f = {0};
  frame_head(&f, "hello");
  buf_str(&f, ",\"server\":");
  json_quote(&f, server_name, strlen(server_name), 1);
  buf_fmt(&f, ",\"relayPid\":%d,\"serverPid\":", (int)getpid());
  if (exec_error) buf_str(&f, "null");
  else buf_fmt(&f, "%d", (int)child_pid);
  /* What a spare for the next session of this agent needs: who started this relay, the
     server's folder and the inherited part of its environment (the kit knows the rest). */
  if (spare_fd >= 0) {
    buf_str(&f, ",\"spare\":");
    json_quote(&f, spares[spare_taken], strlen(spares[spare_taken]), 1);
  }
  buf_fmt(&f, ",\"ppid\":%d,\"cwd\":", (int)getppid());
  json_quote(&f, server_dir, strlen(server_dir), 1);
  buf_str(&f, ",\"inherited\":{");
  for (size_t k = 0, first = 1; k < inherit_count; k++) {
    const char *value = getenv(inherited[k]);
    if (!value) continue;
    if (!first) buf_ch(&f, ',');
    first = 0;
    json_quote(&f, inherited[k], strlen(inherited[k]), 1);
    buf_ch(&f, ':');
    json_quote(&f, value, strlen(value), 1);
  }
  buf_str(&f, "}}");
  send_frame(&f);

  int exit_code = -1, exit_signal = 0, child_done = 0, client_closed = 0;
  const char *cause = NULL;
  buf_t detail = {0};
  if (exec_error) {
    if (child_pid > 0) waitpid(child_pid, NULL, 0);
    child_pid = -1;
    const char *code = errno_name(exec_error);
    buf_fmt(&detail, "spawn ");
    buf_str(&detail, target[0]);
    buf_ch(&detail, ' ');
    buf_str(&detail, code ? code : strerror(exec_error));
    buf_t quoted = {0};
    json_quote(&quoted, target[0], strlen(target[0]), 1);
    fprintf(stderr, "stdio-relay: cannot start %s: %s\n", quoted.data, detail.data);
    buf_free(&quoted);
    exit_code = 127;
    child_done = 1;
    cause = "spawn_failed";
    close(child_out);
    close(child_err);
    child_out = child_err = -1;
  }

  buf_t from_client = {0}, from_server = {0}, channel_in = {0};
  buf_t tail = {0};
  size_t stderr_mirrored = 0;
  double term_at = -1, kill_at = -1;
  char chunk[65536];
  int stdin_open = !exec_error;

  while (!(child_done && child_out < 0 && child_err < 0)) {
    struct pollfd fds[7];
    int n = 0, i_sig = -1, i_in = -1, i_out = -1, i_err = -1, i_chan = -1, i_cin = -1,
        i_spare = -1;
    fds[i_sig = n++] = (struct pollfd){sig_pipe[0], POLLIN, 0};
    if (spare_fd >= 0 && !child_done) fds[i_spare = n++] = (struct pollfd){spare_fd, POLLIN, 0};
    if (stdin_open) fds[i_in = n++] = (struct pollfd){0, POLLIN, 0};
    if (child_out >= 0) fds[i_out = n++] = (struct pollfd){child_out, POLLIN, 0};
    if (child_err >= 0) fds[i_err = n++] = (struct pollfd){child_err, POLLIN, 0};
    if (channel_up)
      fds[i_chan = n++] = (struct pollfd){
          channel_fd, (short)(POLLIN | (channel_out.len > channel_out.off ? POLLOUT : 0)), 0};
    if (child_in >= 0 && child_in_out.len > child_in_out.off)
      fds[i_cin = n++] = (struct pollfd){child_in, POLLOUT, 0};
    int timeout = -1;
    if (term_at >= 0 || kill_at >= 0) {
      double next = term_at >= 0 ? term_at : kill_at;
      double wait = next - mono_ms();
      timeout = wait < 0 ? 0 : (int)wait + 1;
    }
    int ready = poll(fds, (nfds_t)n, timeout);
    if (ready < 0 && errno != EINTR) break;
    double t = mono_ms();
    if (term_at >= 0 && t >= term_at) {
      if (child_pid > 0 && !child_done) kill(child_pid, SIGTERM);
      term_at = -1;
    }
    if (kill_at >= 0 && t >= kill_at && term_at < 0) {
      if (child_pid > 0 && !child_done) kill(child_pid, SIGKILL);
      kill_at = -1;
    }
    if (ready <= 0) continue;

    if (fds[i_sig].revents & POLLIN) {
      unsigned char sigs[64];
      ssize_t r = read(sig_pipe[0], sigs, sizeof sigs);
      for (ssize_t k = 0; k < r; k++) {
        if (sigs[k] == SIGCHLD) continue;
        client_closed = 1;
        if (child_pid > 0 && !child_done) kill(child_pid, sigs[k]);
      }
      int status;
      if (child_pid > 0 && !child_done && waitpid(child_pid, &status, WNOHANG) == child_pid) {
        child_done = 1;
        if (WIFSIGNALED(status)) exit_signal = WTERMSIG(status);
        else exit_code = WEXITSTATUS(status);
      }
    }
    /* A spare's server is the parked relay's child: its status comes from there. */
    if (i_spare >= 0 && (fds[i_spare].revents & (POLLIN | POLLHUP | POLLERR))) {
      int32_t how[2] = {-1, 0};
      if (read_full(spare_fd, how, sizeof how) == 0) {
        exit_code = how[0];
        exit_signal = how[1];
      }
      child_done = 1;
      close(spare_fd);
      spare_fd = -1;
    }
    if (i_chan >= 0 && (fds[i_chan].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t r = read(channel_fd, chunk, sizeof chunk);
      if (r > 0) {
        size_t start = 0;
        for (size_t k = 0; k < (size_t)r; k++) {
          if (chunk[k] != '\n') continue;
          buf_add(&channel_in, chunk + start, k - start);
          jval *frame = jparse(channel_in.data, channel_in.len, 0, NULL, NULL);
          const jval *token = jget(frame, "token");
          /* Frames are written in order, so this ack follows everything mirrored before. */
          if (jstr_is(jget(frame, "t"), "flush") && token && token->type == J_NUM) {
            buf_t ack = {0};
            frame_head(&ack, "ack");
            buf_str(&ack, ",\"token\":");
            buf_add(&ack, channel_in.data + token->start, token->end - token->start);
            buf_ch(&ack, '}');
            send_frame(&ack);
            buf_free(&ack);
          }
          jfree(frame);
          channel_in.len = 0;
          start = k + 1;
        }
        if (start < (size_t)r) buf_add(&channel_in, chunk + start, (size_t)r - start);
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        drop_channel();
      }
    }
    if (i_chan >= 0 && channel_up && (fds[i_chan].revents & POLLOUT)) {
      if (drain(channel_fd, &channel_out) < 0) drop_channel();
    }
    if (i_cin >= 0 && (fds[i_cin].revents & (POLLOUT | POLLERR | POLLHUP))) {
      if (drain(child_in, &child_in_out) < 0) {
        close(child_in);
        child_in = -1;
      }
    }
    if (child_in >= 0 && child_in_close_pending && child_in_out.len == child_in_out.off) {
      close(child_in);
      child_in = -1;
    }
    /* Server → client: mirror each complete line first, then forward the chunk untouched. */
    if (i_out >= 0 && (fds[i_out].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t r = read(child_out, chunk, sizeof chunk);
      if (r > 0) {
        split_lines(&from_server, chunk, (size_t)r, server_line);
        write_all(1, chunk, (size_t)r);
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(child_out);
        child_out = -1;
      }
    }
    if (i_err >= 0 && (fds[i_err].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t r = read(child_err, chunk, sizeof chunk);
      if (r > 0) {
        write_all(2, chunk, (size_t)r);
        buf_add(&tail, chunk, (size_t)r);
        if (tail.len > STDERR_TAIL_LIMIT * 2) {
          memmove(tail.data, tail.data + tail.len - STDERR_TAIL_LIMIT, STDERR_TAIL_LIMIT);
          tail.len = STDERR_TAIL_LIMIT;
        }
        if (stderr_mirrored < STDERR_MIRROR_LIMIT) {
          size_t room = STDERR_MIRROR_LIMIT - stderr_mirrored;
          size_t take = (size_t)r <= room ? (size_t)r : room;
          buf_t data = {0};
          buf_add(&data, chunk, take);
          if (take < (size_t)r)
            buf_str(&data, "\n[stderr mirror limit reached: the rest passes through unrecorded; "
                           "its tail is kept]\n");
          stderr_mirrored += take;
          frame_head(&f, "stderr");
          frame_at(&f);
          buf_str(&f, ",\"data\":");
          json_quote(&f, data.data, data.len, 1);
          buf_ch(&f, '}');
          send_frame(&f);
          buf_free(&data);
        }
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(child_err);
        child_err = -1;
      }
    }
    /* Client → server: every line checked before it is forwarded. */
    if (i_in >= 0 && (fds[i_in].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t r = read(0, chunk, sizeof chunk);
      if (r > 0) {
        split_lines(&from_client, chunk, (size_t)r, client_line);
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        stdin_open = 0;
        client_closed = 1;
        if (from_client.len > 0) forward_line(from_client.data, from_client.len, "");
        from_client.len = 0;
        child_in_close_pending = 1;
        if (child_in >= 0 && child_in_out.len == child_in_out.off) {
          close(child_in);
          child_in = -1;
        }
        term_at = mono_ms() + STOP_GRACE_MS;
        kill_at = mono_ms() + 2 * STOP_GRACE_MS;
      }
    }
  }

  if (!cause) {
    if (from_server.len > 0) server_line(from_server.data, from_server.len);
    cause = client_closed ? "client_closed" : "server_exited";
  }
  if (client_closed) exit_signal = 0;
  frame_head(&f, "exit");
  frame_at(&f);
  buf_str(&f, ",\"code\":");
  if (exit_code >= 0) buf_fmt(&f, "%d", exit_code);
  else buf_str(&f, "null");
  buf_str(&f, ",\"signal\":");
  if (exit_signal) {
    const char *name = signal_name(exit_signal);
    buf_str(&f, "\"");
    if (name) buf_str(&f, name);
    else buf_fmt(&f, "SIG%d", exit_signal);
    buf_str(&f, "\"");
  } else {
    buf_str(&f, "null");
  }
  buf_str(&f, ",\"stderrTail\":");
  {
    size_t from = tail.len > STDERR_TAIL_LIMIT ? tail.len - STDERR_TAIL_LIMIT : 0;
    json_quote(&f, tail.data ? tail.data + from : "", tail.len - from, 1);
  }
  buf_str(&f, ",\"cause\":\"");
  buf_str(&f, cause);
  buf_str(&f, "\"");
  if (detail.len) {
    buf_str(&f, ",\"detail\":");
    json_quote(&f, detail.data, detail.len, 1);
  }
  buf_ch(&f, '}');
  send_frame(&f);
  /* Everything queued for the kit goes out before the relay leaves. */
  while (channel_up && channel_out.len > channel_out.off) {
    struct pollfd one = {channel_fd, POLLOUT, 0};
    if (poll(&one, 1, -1) < 0 && errno != EINTR) break;
    if (drain(channel_fd, &channel_out) < 0) drop_channel();
  }
  if (channel_up) {
    shutdown(channel_fd, SHUT_WR);
    close(channel_fd);
  }
  if (exit_signal) {
    signal(exit_signal, SIG_DFL);
    raise(exit_signal);
  }
  return exit_code >= 0 ? exit_code : 1;
}
