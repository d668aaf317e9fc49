// The floor under every run that decodes (`scripts/bench floor`): a process that
// only opens the named shared libraries, as notti-media's decode workers open
// libvips and FFmpeg (dlopen, RTLD_LAZY | RTLD_LOCAL), and does nothing else.
// Each argument is one worker's libraries, separated by commas, opened in a
// child process of its own; the children run side by side, as the two workers
// do, and the program exits when both are done.
//
//     load-decoders libvips.so.42 libavutil.so.57,libavformat.so.59
//
// Exit 0 when every library opened; 1 (with dlerror's message) otherwise; 2 for
// bad usage.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_all(char *libraries) {
    for (char *name = strtok(libraries, ","); name; name = strtok(NULL, ",")) {
        if (!dlopen(name, RTLD_LAZY | RTLD_LOCAL)) {
            fprintf(stderr, "load-decoders: %s\n", dlerror());
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: load-decoders LIB[,LIB...]...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        pid_t child = fork();
        if (child < 0) {
            perror("load-decoders: fork");
            return 1;
        }
        if (child == 0) _exit(open_all(argv[i]));
    }
    int failed = 0, status;
    while (wait(&status) > 0) failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    return failed;
}
