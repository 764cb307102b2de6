//! The scenarios shipped inside the binary, and the coverage they provide.

use super::load_str;
use crate::rules::{Coverage, RuleId};

/// Bundled scenarios as (name, YAML), the name being the path under `scenarios/` without
/// `.yaml`. A test keeps this list equal to the files on disk.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "01-handshake/button-probe",
        include_str!("../../scenarios/01-handshake/button-probe.yaml"),
    ),
    (
        "01-handshake/fast-usiok",
        include_str!("../../scenarios/01-handshake/fast-usiok.yaml"),
    ),
    (
        "01-handshake/id-author",
        include_str!("../../scenarios/01-handshake/id-author.yaml"),
    ),
    (
        "01-handshake/info-only-probe",
        include_str!("../../scenarios/01-handshake/info-only-probe.yaml"),
    ),
    (
        "01-handshake/no-option-after-usiok",
        include_str!("../../scenarios/01-handshake/no-option-after-usiok.yaml"),
    ),
    (
        "02-options/case-insensitive-names",
        include_str!("../../scenarios/02-options/case-insensitive-names.yaml"),
    ),
    (
        "02-options/multipv-advertised",
        include_str!("../../scenarios/02-options/multipv-advertised.yaml"),
    ),
    (
        "02-options/option-grammar",
        include_str!("../../scenarios/02-options/option-grammar.yaml"),
    ),
    (
        "02-options/setoption-every-check",
        include_str!("../../scenarios/02-options/setoption-every-check.yaml"),
    ),
    (
        "02-options/string-values",
        include_str!("../../scenarios/02-options/string-values.yaml"),
    ),
    (
        "02-options/unknown-and-out-of-range",
        include_str!("../../scenarios/02-options/unknown-and-out-of-range.yaml"),
    ),
    (
        "02-options/usi-hash-and-ponder",
        include_str!("../../scenarios/02-options/usi-hash-and-ponder.yaml"),
    ),
    (
        "03-ready/go-right-after-usinewgame",
        include_str!("../../scenarios/03-ready/go-right-after-usinewgame.yaml"),
    ),
    (
        "03-ready/initialise-at-isready",
        include_str!("../../scenarios/03-ready/initialise-at-isready.yaml"),
    ),
    (
        "03-ready/isready-during-go-infinite",
        include_str!("../../scenarios/03-ready/isready-during-go-infinite.yaml"),
    ),
    (
        "03-ready/isready-twice",
        include_str!("../../scenarios/03-ready/isready-twice.yaml"),
    ),
    (
        "03-ready/keep-alive-during-slow-init",
        include_str!("../../scenarios/03-ready/keep-alive-during-slow-init.yaml"),
    ),
    (
        "03-ready/no-usinewgame",
        include_str!("../../scenarios/03-ready/no-usinewgame.yaml"),
    ),
    (
        "03-ready/readyok-means-prepared",
        include_str!("../../scenarios/03-ready/readyok-means-prepared.yaml"),
    ),
    (
        "04-position/bad-positions-survived",
        include_str!("../../scenarios/04-position/bad-positions-survived.yaml"),
    ),
    (
        "04-position/drop-notation",
        include_str!("../../scenarios/04-position/drop-notation.yaml"),
    ),
    (
        "04-position/empty-moves",
        include_str!("../../scenarios/04-position/empty-moves.yaml"),
    ),
    (
        "04-position/hands",
        include_str!("../../scenarios/04-position/hands.yaml"),
    ),
    (
        "04-position/history-for-repetition",
        include_str!("../../scenarios/04-position/history-for-repetition.yaml"),
    ),
    (
        "04-position/move-count-optional",
        include_str!("../../scenarios/04-position/move-count-optional.yaml"),
    ),
    (
        "04-position/non-promotion-in-moves",
        include_str!("../../scenarios/04-position/non-promotion-in-moves.yaml"),
    ),
    (
        "04-position/position-is-silent",
        include_str!("../../scenarios/04-position/position-is-silent.yaml"),
    ),
    (
        "04-position/rebuild-every-time",
        include_str!("../../scenarios/04-position/rebuild-every-time.yaml"),
    ),
    (
        "04-position/startpos-and-sfen",
        include_str!("../../scenarios/04-position/startpos-and-sfen.yaml"),
    ),
    (
        "04-position/white-to-move-handicap",
        include_str!("../../scenarios/04-position/white-to-move-handicap.yaml"),
    ),
    (
        "05-go/btime-wtime-colours",
        include_str!("../../scenarios/05-go/btime-wtime-colours.yaml"),
    ),
    (
        "05-go/byoyomi",
        include_str!("../../scenarios/05-go/byoyomi.yaml"),
    ),
    (
        "05-go/byoyomi-and-increment",
        include_str!("../../scenarios/05-go/byoyomi-and-increment.yaml"),
    ),
    (
        "05-go/depth-and-nodes",
        include_str!("../../scenarios/05-go/depth-and-nodes.yaml"),
    ),
    (
        "05-go/go-after-bad-position",
        include_str!("../../scenarios/05-go/go-after-bad-position.yaml"),
    ),
    (
        "05-go/go-infinite",
        include_str!("../../scenarios/05-go/go-infinite.yaml"),
    ),
    (
        "05-go/go-infinite-when-mated",
        include_str!("../../scenarios/05-go/go-infinite-when-mated.yaml"),
    ),
    (
        "05-go/increment",
        include_str!("../../scenarios/05-go/increment.yaml"),
    ),
    (
        "05-go/movetime",
        include_str!("../../scenarios/05-go/movetime.yaml"),
    ),
    (
        "05-go/no-bestmove-without-go",
        include_str!("../../scenarios/05-go/no-bestmove-without-go.yaml"),
    ),
    (
        "05-go/one-bestmove-per-go",
        include_str!("../../scenarios/05-go/one-bestmove-per-go.yaml"),
    ),
    (
        "05-go/per-side-byoyomi",
        include_str!("../../scenarios/05-go/per-side-byoyomi.yaml"),
    ),
    (
        "05-go/searchmoves",
        include_str!("../../scenarios/05-go/searchmoves.yaml"),
    ),
    (
        "05-go/stdin-read-while-searching",
        include_str!("../../scenarios/05-go/stdin-read-while-searching.yaml"),
    ),
    (
        "05-go/sudden-death",
        include_str!("../../scenarios/05-go/sudden-death.yaml"),
    ),
    (
        "05-go/unknown-tokens-any-order",
        include_str!("../../scenarios/05-go/unknown-tokens-any-order.yaml"),
    ),
    (
        "06-ponder/early-ponder",
        include_str!("../../scenarios/06-ponder/early-ponder.yaml"),
    ),
    (
        "06-ponder/gameover-during-ponder",
        include_str!("../../scenarios/06-ponder/gameover-during-ponder.yaml"),
    ),
    (
        "06-ponder/no-pondering-after-bestmove",
        include_str!("../../scenarios/06-ponder/no-pondering-after-bestmove.yaml"),
    ),
    (
        "06-ponder/ponder-clock-binds",
        include_str!("../../scenarios/06-ponder/ponder-clock-binds.yaml"),
    ),
    (
        "06-ponder/ponder-hit",
        include_str!("../../scenarios/06-ponder/ponder-hit.yaml"),
    ),
    (
        "06-ponder/ponder-miss",
        include_str!("../../scenarios/06-ponder/ponder-miss.yaml"),
    ),
    (
        "06-ponder/ponder-when-mated",
        include_str!("../../scenarios/06-ponder/ponder-when-mated.yaml"),
    ),
    (
        "06-ponder/ponderhit-with-clock",
        include_str!("../../scenarios/06-ponder/ponderhit-with-clock.yaml"),
    ),
    (
        "07-stop/late-and-double-stop",
        include_str!("../../scenarios/07-stop/late-and-double-stop.yaml"),
    ),
    (
        "07-stop/ponderhit-outside-ponder",
        include_str!("../../scenarios/07-stop/ponderhit-outside-ponder.yaml"),
    ),
    (
        "07-stop/stop-when-idle",
        include_str!("../../scenarios/07-stop/stop-when-idle.yaml"),
    ),
    (
        "08-bestmove/bestmove-grammar-and-legality",
        include_str!("../../scenarios/08-bestmove/bestmove-grammar-and-legality.yaml"),
    ),
    (
        "08-bestmove/declaration-win",
        include_str!("../../scenarios/08-bestmove/declaration-win.yaml"),
    ),
    (
        "08-bestmove/drop-token",
        include_str!("../../scenarios/08-bestmove/drop-token.yaml"),
    ),
    (
        "08-bestmove/final-info-before-bestmove",
        include_str!("../../scenarios/08-bestmove/final-info-before-bestmove.yaml"),
    ),
    (
        "08-bestmove/no-declaration-at-27-points",
        include_str!("../../scenarios/08-bestmove/no-declaration-at-27-points.yaml"),
    ),
    (
        "08-bestmove/resign-when-mated",
        include_str!("../../scenarios/08-bestmove/resign-when-mated.yaml"),
    ),
    (
        "09-info/mate-score-in-plies",
        include_str!("../../scenarios/09-info/mate-score-in-plies.yaml"),
    ),
    (
        "09-info/multipv",
        include_str!("../../scenarios/09-info/multipv.yaml"),
    ),
    (
        "09-info/no-info-while-idle",
        include_str!("../../scenarios/09-info/no-info-while-idle.yaml"),
    ),
    (
        "09-info/search-info-grammar",
        include_str!("../../scenarios/09-info/search-info-grammar.yaml"),
    ),
    (
        "10-mate/checkmate-none",
        include_str!("../../scenarios/10-mate/checkmate-none.yaml"),
    ),
    (
        "10-mate/limit-is-time",
        include_str!("../../scenarios/10-mate/limit-is-time.yaml"),
    ),
    (
        "10-mate/mate-in-one",
        include_str!("../../scenarios/10-mate/mate-in-one.yaml"),
    ),
    (
        "10-mate/mate-infinite-solves",
        include_str!("../../scenarios/10-mate/mate-infinite-solves.yaml"),
    ),
    (
        "10-mate/mate-with-node-limit",
        include_str!("../../scenarios/10-mate/mate-with-node-limit.yaml"),
    ),
    (
        "10-mate/no-mate-at-startpos",
        include_str!("../../scenarios/10-mate/no-mate-at-startpos.yaml"),
    ),
    (
        "10-mate/nomate-on-timeout",
        include_str!("../../scenarios/10-mate/nomate-on-timeout.yaml"),
    ),
    (
        "10-mate/stop-during-mate",
        include_str!("../../scenarios/10-mate/stop-during-mate.yaml"),
    ),
    (
        "10-mate/time-limit",
        include_str!("../../scenarios/10-mate/time-limit.yaml"),
    ),
    (
        "10-mate/tsume-without-attacker-king",
        include_str!("../../scenarios/10-mate/tsume-without-attacker-king.yaml"),
    ),
    (
        "11-gameover/gameover-draw-when-idle",
        include_str!("../../scenarios/11-gameover/gameover-draw-when-idle.yaml"),
    ),
    (
        "11-gameover/gameover-during-search",
        include_str!("../../scenarios/11-gameover/gameover-during-search.yaml"),
    ),
    (
        "11-gameover/gameover-lose-when-idle",
        include_str!("../../scenarios/11-gameover/gameover-lose-when-idle.yaml"),
    ),
    (
        "11-gameover/gameover-unknown",
        include_str!("../../scenarios/11-gameover/gameover-unknown.yaml"),
    ),
    (
        "11-gameover/gameover-win-when-idle",
        include_str!("../../scenarios/11-gameover/gameover-win-when-idle.yaml"),
    ),
    (
        "11-gameover/next-game-after-gameover",
        include_str!("../../scenarios/11-gameover/next-game-after-gameover.yaml"),
    ),
    (
        "11-gameover/silent-after-gameover",
        include_str!("../../scenarios/11-gameover/silent-after-gameover.yaml"),
    ),
    (
        "12-quit/clean-exit-status",
        include_str!("../../scenarios/12-quit/clean-exit-status.yaml"),
    ),
    (
        "12-quit/quit-during-ponder",
        include_str!("../../scenarios/12-quit/quit-during-ponder.yaml"),
    ),
    (
        "12-quit/quit-during-search",
        include_str!("../../scenarios/12-quit/quit-during-search.yaml"),
    ),
    (
        "12-quit/quit-when-idle",
        include_str!("../../scenarios/12-quit/quit-when-idle.yaml"),
    ),
    (
        "12-quit/stdin-eof",
        include_str!("../../scenarios/12-quit/stdin-eof.yaml"),
    ),
    (
        "13-robust/crlf-input",
        include_str!("../../scenarios/13-robust/crlf-input.yaml"),
    ),
    (
        "13-robust/debug-command",
        include_str!("../../scenarios/13-robust/debug-command.yaml"),
    ),
    (
        "13-robust/empty-lines",
        include_str!("../../scenarios/13-robust/empty-lines.yaml"),
    ),
    (
        "13-robust/extra-whitespace",
        include_str!("../../scenarios/13-robust/extra-whitespace.yaml"),
    ),
    (
        "13-robust/long-game",
        include_str!("../../scenarios/13-robust/long-game.yaml"),
    ),
    (
        "13-robust/malformed-arguments",
        include_str!("../../scenarios/13-robust/malformed-arguments.yaml"),
    ),
    (
        "13-robust/many-games",
        include_str!("../../scenarios/13-robust/many-games.yaml"),
    ),
    (
        "13-robust/no-free-text-on-stdout",
        include_str!("../../scenarios/13-robust/no-free-text-on-stdout.yaml"),
    ),
    (
        "13-robust/output-flushed",
        include_str!("../../scenarios/13-robust/output-flushed.yaml"),
    ),
    (
        "13-robust/output-hygiene",
        include_str!("../../scenarios/13-robust/output-hygiene.yaml"),
    ),
    (
        "13-robust/unknown-command",
        include_str!("../../scenarios/13-robust/unknown-command.yaml"),
    ),
    (
        "14-encoding/non-ascii-option-value",
        include_str!("../../scenarios/14-encoding/non-ascii-option-value.yaml"),
    ),
    (
        "14-encoding/output-encoding",
        include_str!("../../scenarios/14-encoding/output-encoding.yaml"),
    ),
    (
        "15-ext/book-move-info",
        include_str!("../../scenarios/15-ext/book-move-info.yaml"),
    ),
    (
        "15-ext/hash-advertised",
        include_str!("../../scenarios/15-ext/hash-advertised.yaml"),
    ),
    (
        "15-ext/int64-spin",
        include_str!("../../scenarios/15-ext/int64-spin.yaml"),
    ),
    (
        "15-ext/isready-budget",
        include_str!("../../scenarios/15-ext/isready-budget.yaml"),
    ),
    (
        "15-ext/mandatory-multipv",
        include_str!("../../scenarios/15-ext/mandatory-multipv.yaml"),
    ),
    (
        "15-ext/mandatory-threads",
        include_str!("../../scenarios/15-ext/mandatory-threads.yaml"),
    ),
    (
        "15-ext/no-pass-in-check",
        include_str!("../../scenarios/15-ext/no-pass-in-check.yaml"),
    ),
    (
        "15-ext/ponder-advertised",
        include_str!("../../scenarios/15-ext/ponder-advertised.yaml"),
    ),
    (
        "15-ext/setoption-after-usinewgame",
        include_str!("../../scenarios/15-ext/setoption-after-usinewgame.yaml"),
    ),
    (
        "15-ext/stochastic-ponder",
        include_str!("../../scenarios/15-ext/stochastic-ponder.yaml"),
    ),
    (
        "16-rules/declaration-variants",
        include_str!("../../scenarios/16-rules/declaration-variants.yaml"),
    ),
    (
        "16-rules/entering-king-rule-set",
        include_str!("../../scenarios/16-rules/entering-king-rule-set.yaml"),
    ),
    (
        "16-rules/perpetual-check",
        include_str!("../../scenarios/16-rules/perpetual-check.yaml"),
    ),
];

/// Coverage from the bundled scenarios' `rules:` lists (a scenario that fails to load, which
/// the tests rule out, contributes nothing).
///
/// ```
/// use usicheck::rules::Status;
/// let coverage = usicheck::scenario::bundled_coverage();
/// let quit = "USI-QUIT-003".parse().unwrap();
/// assert_eq!(coverage.status(quit), Status::Unproven); // faults are added by `usicheck rules`
/// ```
pub fn bundled_coverage() -> Coverage {
    let mut coverage = Coverage::default();
    use super::GUI_CONDUCT_RULES;
    use crate::observer::{
        ALWAYS_ON_RULES, CLOCK_RULES, LEGALITY_RULES, MISREAD_RULES, STARTUP_RULES,
    };
    // Each always-on check site by what it judges (src/observer), so `usicheck rules ID`
    // says which one sees the rule.
    let sites: [(&str, Vec<RuleId>); 7] = [
        (
            "always-on move legality in the position given (observer/line_check.rs)",
            LEGALITY_RULES.to_vec(),
        ),
        (
            "always-on misread position: an illegal move legal on the SFEN board mirrored, \
             its hands miscounted, or the position before a rejected optional form \
             (observer/misread.rs)",
            MISREAD_RULES.to_vec(),
        ),
        (
            "always-on reply clock (observer/timing.rs)",
            CLOCK_RULES.to_vec(),
        ),
        (
            "start-up latencies: the first `usi` → `usiok` against the first `isready` → \
             `readyok` of the engine process of a scenario run alone (observer/startup.rs)",
            STARTUP_RULES.to_vec(),
        ),
        (
            "always-on line grammar, encoding and protocol order (observer/line_check.rs, protocol/)",
            ALWAYS_ON_RULES
                .iter()
                .copied()
                .filter(|r| {
                    !LEGALITY_RULES.contains(r)
                        && !CLOCK_RULES.contains(r)
                        && !STARTUP_RULES.contains(r)
                })
                .collect(),
        ),
        (
            "usicheck as the GUI: the scenario loader refuses a `go ponder` without the clock \
             (scenario/model.rs)",
            vec![crate::rule!("USI-PONDER-003")],
        ),
        (
            "usicheck as the GUI: every bundled scenario's transcript keeps it, except where \
             the scenario's `gui_deviations` breaks it on purpose (scenario/gui_conduct.rs, \
             tests/certify.rs)",
            GUI_CONDUCT_RULES.to_vec(),
        ),
    ];
    for (site, rules) in &sites {
        coverage.add_check(site, rules);
    }
    for (name, yaml) in BUNDLED {
        if let Ok(scenario) = load_str(name, yaml) {
            coverage.add_scenario(name, &scenario.rules);
        }
    }
    coverage
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn yaml_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                yaml_files(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let rel = path.strip_prefix(root).unwrap().with_extension("");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    #[test]
    fn bundled_list_matches_scenario_files() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut on_disk = Vec::new();
        yaml_files(&root, &root, &mut on_disk);
        on_disk.sort();
        let listed: Vec<String> = BUNDLED.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(listed, on_disk);
    }

    #[test]
    fn every_bundled_scenario_loads() {
        for (name, yaml) in BUNDLED {
            if let Err(err) = load_str(name, yaml) {
                panic!("{err}");
            }
        }
    }
}
