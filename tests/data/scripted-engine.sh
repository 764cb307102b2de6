#!/bin/sh
# A USI engine that plays the moves given as arguments, one per `go`, whatever the position:
# whole-game tests script both sides of a game with it (tests/play.rs).
while read -r line; do
    case "$line" in
        usi) printf 'id name scripted\nid author usicheck tests\nusiok\n' ;;
        isready) echo readyok ;;
        go*)
            if [ $# -gt 0 ]; then
                echo "bestmove $1"
                shift
            else
                echo "bestmove resign"
            fi
            ;;
        quit) exit 0 ;;
    esac
done
