#!/usr/bin/env bash
# A USI engine that answers the handshake, then answers `go` with `info` lines as fast as the
# pipe takes them and never a `bestmove` (tests/play.rs: the wait for it ends at its deadline).
while read -r line; do
  case $line in
    usi) printf 'id name flooding-engine\nid author usicheck tests\nusiok\n' ;;
    isready) echo readyok ;;
    go*) exec yes "info depth 1 score cp 0 pv 7g7f" ;;
    quit) exit 0 ;;
  esac
done
