/*
 * group-exec: starts a program in a process group of its own, in the caller's session.
 *
 *   group-exec -- <command> <args...>   (fd 3: a pipe; see below)
 *   group-exec --source-sha256          (prints the SHA-256 of the source it was built from)
 *
 * Node can put a child in a group of its own only by giving it a session of its own
 * (`detached`, setsid()), and on Linux a new session is a new scheduling autogroup: a server
 * there answers each request later whenever the machine is busy (a third fewer calls per
 * second at a load of 3). This program calls setpgid(0, 0) and then execvp(), so the
 * program keeps its pid as the group's id (the kit still stops the whole group) and stays
 * in the caller's session and autogroup.
 *
 * fd 3 tells the caller whether the exec worked, the way libuv learns it for a spawn: it is
 * closed on exec (nothing read), or gets "<errno>\n" when the exec failed (exit 127).
 * Built at install time by build-relay.cjs with the machine's C compiler; without one the
 * kit starts servers with a session of their own, as before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef GROUP_EXEC_SOURCE_SHA256
#define GROUP_EXEC_SOURCE_SHA256 "unknown"
#endif

#define STATUS_FD 3

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--source-sha256") == 0) {
    puts(GROUP_EXEC_SOURCE_SHA256);
    return 0;
  }
  if (argc < 3 || strcmp(argv[1], "--") != 0) {
    fputs("usage: group-exec -- <command> <args...>\n", stderr);
    return 64;
  }
  int status = fcntl(STATUS_FD, F_GETFD) == -1 ? -1 : STATUS_FD;
  if (status != -1) fcntl(status, F_SETFD, FD_CLOEXEC);
  if (setpgid(0, 0) != 0) {
    int error = errno;
    fprintf(stderr, "group-exec: setpgid failed: %s\n", strerror(error));
    if (status != -1) dprintf(status, "%d\n", error);
    return 127;
  }
  execvp(argv[2], argv + 2);
  int error = errno;
  if (status != -1) dprintf(status, "%d\n", error);
  return 127;
}
