/* A deliberately small USI engine in C with one planted bug, to try the recipe of
 * fuzz/README.md ("Coverage from a C or C++ engine"): built with afl-clang-fast, fuzzed by
 * AFL++ through usicheck's engine_session harness, which generates the sessions and judges the
 * replies while AFL++ reads the engine's coverage.
 *
 * It answers every search with `bestmove resign` (always legal) and crashes when a search is
 * asked for in a position sent with at least 8 moves whose last one is a drop: a state only
 * the engine's own branches tell apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int moves_sent;
static int last_is_drop;

static void read_position(char *line) {
    moves_sent = 0;
    last_is_drop = 0;
    char *moves = strstr(line, " moves ");
    if (!moves) return;
    for (char *tok = strtok(moves + 7, " "); tok; tok = strtok(NULL, " ")) {
        moves_sent++;
        last_is_drop = strlen(tok) == 4 && tok[1] == '*';
    }
}

int main(void) {
    static char line[1 << 16];
    int infinite = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!strcmp(line, "usi")) {
            puts("id name toy-engine");
            puts("id author usicheck");
            puts("usiok");
        } else if (!strcmp(line, "isready")) {
            puts("readyok");
        } else if (!strncmp(line, "position ", 9)) {
            read_position(line);
        } else if (!strncmp(line, "go", 2) && (line[2] == ' ' || !line[2])) {
            if (moves_sent >= 8 && last_is_drop) abort(); /* the planted bug */
            infinite = strstr(line, "infinite") != NULL;
            if (!infinite) puts("bestmove resign");
        } else if (!strcmp(line, "stop")) {
            if (infinite) puts("bestmove resign");
            infinite = 0;
        } else if (!strcmp(line, "quit")) {
            return 0;
        }
    }
    return 0;
}
