//! The fault catalogue: deliberate deviations that make the reference engine break named rules.
//!
//! Each fault is a small hook at the exact point where a real engine would go wrong; the engine
//! code asks [`FaultSet::has`] there. A fault never changes anything else, so a test that sees
//! the deviation proves the matching check in usicheck can fail.

use crate::rule;
use crate::rules::RuleId;
use std::fmt;
use std::str::FromStr;

macro_rules! catalogue {
    ($($variant:ident $name:literal [$($rule:expr),*] $description:literal;)+) => {
        /// One deliberate deviation from the rules.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Fault {
            $($variant,)+
        }

        impl Fault {
            /// Every fault, in catalogue order.
            pub const ALL: &'static [Fault] = &[$(Fault::$variant,)+];

            /// The name used with `--fault`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Fault::$variant => $name,)+
                }
            }

            /// The rule IDs (RULES.md) this fault breaks; none for a quality fault, which
            /// plays worse without breaking a rule (certify must pass it).
            pub const fn rules(self) -> &'static [RuleId] {
                match self {
                    $(Fault::$variant => {
                        const RULES: &[RuleId] = &[$($rule),*];
                        RULES
                    })+
                }
            }

            /// One line saying how the engine misbehaves.
            pub const fn description(self) -> &'static str {
                match self {
                    $(Fault::$variant => $description,)+
                }
            }
        }
    };
}

catalogue! {
    // Handshake
    NoIdName "no-id-name" [rule!("USI-HANDSHAKE-002")] "omits `id name` from the handshake";
    FairyStockfishName "fairy-stockfish-name" [rule!("USI-EXT-020")] "gives its `id name` as Fairy-Stockfish's (`Fairy-Stockfish (usicheck reference engine)`), whose USI dialect usicheck then notes";
    NoIdAuthor "no-id-author" [rule!("USI-HANDSHAKE-002")] "omits `id author` from the handshake";
    OptionAfterUsiok "option-after-usiok" [rule!("USI-HANDSHAKE-003")] "sends the last option line after `usiok`";
    StartupBanner "startup-banner" [rule!("USI-HANDSHAKE-008")] "prints a banner on stdout when it starts, before `usi` (as Fairy-Stockfish does; allowed, noted as INFO)";
    NoUsiok "no-usiok" [rule!("USI-HANDSHAKE-004")] "never sends `usiok`";
    UsiokTrailingBlank "usiok-trailing-blank" [rule!("USI-HANDSHAKE-004"), rule!("USI-ROBUST-005")] "sends `usiok ` with a trailing blank";
    SlowUsiok "slow-usiok" [rule!("USI-HANDSHAKE-001"), rule!("USI-READY-003")] "initialises at `usi`: `usiok` comes 2.5 s late";
    HeavyInitAtUsi "heavy-init-at-usi" [rule!("USI-READY-003")] "initialises at `usi`, not at `isready`: `usiok` comes 1.5 s late (inside the 2 s of USI-HANDSHAKE-001) and `isready` is answered at once";
    QuitNeedsIsready "quit-needs-isready" [rule!("USI-HANDSHAKE-006")] "ignores `quit` until it has received `isready` (the info-only probe hangs)";
    CrashOnButton "crash-on-button" [rule!("USI-HANDSHAKE-007")] "exits with status 1 when a button option is pressed";
    CrashOnSecondButton "crash-on-second-button" [rule!("USI-HANDSHAKE-007")] "advertises a second button, `ResetStats`, and exits with status 1 when it is pressed";
    // Options
    OptionNameWithSpace "option-name-with-space" [rule!("USI-OPTION-002")] "advertises an option whose name contains a space";
    OptionWithoutType "option-without-type" [rule!("USI-OPTION-001")] "advertises an option line without `type` (`option name Contempt default 0`)";
    BadOptionType "bad-option-type" [rule!("USI-OPTION-003")] "advertises an option of type `integer`";
    CheckDefaultUppercase "check-default-uppercase" [rule!("USI-OPTION-003")] "advertises a check option with default `True`";
    ButtonWithDefault "button-with-default" [rule!("USI-OPTION-003")] "advertises a button option with a default";
    SpinDefaultOutOfRange "spin-default-out-of-range" [rule!("USI-OPTION-004")] "advertises a spin whose default is above its max";
    ComboDefaultNotVar "combo-default-not-var" [rule!("USI-OPTION-005")] "advertises a combo whose default is none of its vars";
    StringWithoutDefault "string-without-default" [rule!("USI-OPTION-006")] "advertises the string option with no default";
    SetoptionBlocksIsready "setoption-blocks-isready" [rule!("USI-OPTION-007")] "stops answering `isready` after a `setoption` of its check option";
    CrashOnEmptyValue "crash-on-empty-value" [rule!("USI-OPTION-008")] "exits with status 1 on `setoption … value` with an empty value";
    CaseSensitiveNames "case-sensitive-names" [rule!("USI-OPTION-009")] "matches option names case-sensitively and answers `No such option`";
    CrashOnUnknownOption "crash-on-unknown-option" [rule!("USI-OPTION-010")] "exits with status 1 on `setoption` of an unknown option";
    CrashOnUsiPonder "crash-on-usi-ponder" [rule!("USI-OPTION-012")] "exits with status 1 on `setoption name USI_Ponder`";
    OwnBookAsSpin "own-book-as-spin" [rule!("USI-OPTION-013")] "advertises `USI_OwnBook` as a spin";
    MissingMultiPv "missing-multipv" [rule!("USI-OPTION-014"), rule!("USI-EXT-011")] "does not advertise `MultiPV`";
    MissingThreads "missing-threads" [rule!("USI-EXT-011")] "does not advertise `Threads`";
    MissingUsiHash "missing-usi-hash" [rule!("USI-EXT-012")] "does not advertise `USI_Hash`";
    MissingUsiPonder "missing-usi-ponder" [rule!("USI-EXT-012")] "does not advertise `USI_Ponder`";
    SetoptionAfterNewgameIgnored "setoption-after-newgame-ignored" [rule!("USI-EXT-004")] "ignores `setoption` received after `usinewgame`";
    Int64SpinRejected "int64-spin-rejected" [rule!("USI-EXT-002")] "exits with status 1 when a spin value does not fit 32 bits";
    // isready / usinewgame
    NoReadyok "no-readyok" [rule!("USI-READY-001")] "never answers `isready`";
    DoubleReadyok "double-readyok" [rule!("USI-READY-001")] "answers every `isready` with two `readyok`";
    ReadyokAfterSearch "readyok-after-search" [rule!("USI-READY-006")] "answers `isready` during a search only once the search ends";
    LazyHashAllocation "lazy-hash-allocation" [rule!("USI-READY-002")] "allocates the hash at the first `go` after `setoption name USI_Hash` (1.5 s late)";
    SilentSlowInit "silent-slow-init" [rule!("USI-READY-004"), rule!("USI-EXT-003")] "sends no keep-alive lines during a slow `isready`";
    HeavyNewgame "heavy-newgame" [rule!("USI-READY-007")] "does 1.5 s of work at `usinewgame`, delaying the next `go`";
    NeedsNewgame "needs-newgame" [rule!("USI-READY-008")] "resigns every `go` until it has received a `usinewgame`";
    BrokenBasics "broken-basics" [rule!("USI-READY-001"), rule!("USI-GO-004"), rule!("USI-POSITION-001"), rule!("USI-POSITION-011")] "four basics broken at once: `no-readyok`, `reject-byoyomi`, `mirrored-sfen` and `panic-on-illegal-move` (each fact is established and charged once, whichever others fail)";
    // position
    MirroredSfen "mirrored-sfen" [rule!("USI-POSITION-001")] "reads the files of an SFEN board mirrored (9 as 1); only shows on asymmetric positions";
    MirroredPv "mirrored-pv" [rule!("USI-POSITION-001")] "prints every `pv` and `currmove` move mirrored left to right (file 9 as 1, drops too) for positions given by `sfen` without moves; `bestmove` and `ponder` come from the true board";
    RequireMoveCount "require-move-count" [rule!("USI-POSITION-002")] "rejects an SFEN without the move-count field";
    RejectEmptyMoves "reject-empty-moves" [rule!("USI-POSITION-003")] "rejects `moves` followed by nothing";
    SingleDigitHands "single-digit-hands" [rule!("USI-POSITION-004")] "reads only the last digit of a hand count (18p as 8p)";
    CrashOnHandOrder "crash-on-hand-order" [rule!("USI-POSITION-004")] "exits with status 1 when the hand is not in canonical order";
    IgnoreSideToMove "ignore-side-to-move" [rule!("USI-POSITION-005")] "always puts Black to move after an SFEN";
    AtSignDrops "at-sign-drops" [rule!("USI-POSITION-006"), rule!("USI-BESTMOVE-007")] "writes drops as `B@5e`";
    LowercaseDrops "lowercase-drops" [rule!("USI-POSITION-006"), rule!("USI-BESTMOVE-007")] "writes drops with a lowercase letter for White (`p*5e`)";
    SkipNonPromotions "skip-non-promotions" [rule!("USI-POSITION-007")] "silently skips moves that could promote but do not";
    AssumeContinuity "assume-continuity" [rule!("USI-POSITION-008")] "reuses the previous position when the base is unchanged, playing only the new moves";
    IgnoreHistory "ignore-history" [rule!("USI-POSITION-009")] "ignores the game history: walks into a fourth repetition";
    PlaysPerpetualCheck "plays-perpetual-check" [rule!("USI-RULES-004")] "scores a move that completes a perpetual check (the fourth repetition while it has checked with every move) as a plain repetition draw, and plays it when a draw is the best it has";
    SearchOnPosition "search-on-position" [rule!("USI-POSITION-010")] "prints a search `info` line on `position`";
    ExitOnBadSfen "exit-on-bad-sfen" [rule!("USI-POSITION-011")] "exits with status 1 on a malformed SFEN";
    HangOnIllegalMove "hang-on-illegal-move" [rule!("USI-POSITION-011")] "stops reading input after an illegal move in `moves`";
    PanicOnIllegalMove "panic-on-illegal-move" [rule!("USI-POSITION-011")] "panics on an illegal move in `moves`: a panic message on stderr, exit status 101";
    SilentAfterBadPosition "silent-after-bad-position" [rule!("USI-GO-002")] "answers nothing to a `go` that follows a bad position";
    HangOnPosition "hang-on-position" [rule!("USI-GO-002")] "never answers a `go` on the board of `sfen 4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 1` (Black's king on 5i in check from White's rook on 5e, two golds in hand; any move count): the search never ends and `stop` does not end it, while `isready` is answered and `quit` exits";
    StaleAfterRejectedSfen "stale-after-rejected-sfen" [rule!("USI-MATE-009")] "rejects positions without the attacker's king, like `reject-kingless-tsume`, but keeps the previous position: the next `go mate` or `go` is answered from the board before the rejected `position`";
    // go
    UnpromptedBestmove "unprompted-bestmove" [rule!("USI-GO-001")] "sends `bestmove` on `usinewgame` without any `go`";
    DoubleBestmove "double-bestmove" [rule!("USI-GO-002")] "sends two `bestmove` lines for each `go`";
    CheckmateForGo "checkmate-for-go" [rule!("USI-GO-002")] "a mate-only engine: answers every normal `go` (`go ponder` and `go infinite` too) with one `checkmate` line, as it answers `go mate` with that search's time budget (no budget: `go mate infinite`), never `bestmove`";
    OccasionalDoubleBestmove "occasional-double-bestmove" [rule!("USI-GO-002")] "sends a second `bestmove` for about one `go` in five (seeded)";
    SwappedClocks "swapped-clocks" [rule!("USI-GO-003")] "uses `btime` as its own clock when White";
    IgnoreByoyomi "ignore-byoyomi" [] "ignores `byoyomi`: with no main time left it moves at once from a depth-1 search (a quality fault: moving early breaks no rule)";
    OverrunByoyomi "overrun-byoyomi" [rule!("USI-GO-004")] "spends its byoyomi plus 1 s";
    OverrunByoyomiBy10ms "overrun-byoyomi-by-10ms" [rule!("USI-GO-004")] "spends its byoyomi, the grace G (100 ms) and 10 ms more: each `bestmove` under byoyomi comes 10 ms past its deadline";
    OccasionalLateByoyomi "occasional-late-byoyomi" [rule!("USI-GO-004")] "holds the answer of about one `go` with `byoyomi` in five (seeded) until 800 ms past its clock (main time plus byoyomi)";
    RejectByoyomi "reject-byoyomi" [rule!("USI-GO-004")] "rejects every `go` carrying `byoyomi` (any value, 0 too) with `error: byoyomi is not supported` on stderr and no reply; other `go` forms work";
    ByoyomiPlusIncrement "byoyomi-plus-increment" [rule!("USI-GO-006")] "adds `byoyomi` and the increment when a GUI sends both, and spends them whole";
    DoubleIncrement "double-increment" [rule!("USI-GO-005")] "counts the increment twice and overruns";
    ClockIgnoredBelow1s "clock-ignored-below-1s" [rule!("USI-GO-004")] "ignores the clock once its main time is below 1 s but not gone, under byoyomi: spends that time plus its byoyomi plus 1 s (only whole games reach such a clock; `usicheck play` loses it on time)";
    OverrunSuddenDeath "overrun-sudden-death" [rule!("USI-GO-007")] "overruns its main time by 1 s in sudden death";
    InfiniteEndsEarly "infinite-ends-early" [rule!("USI-GO-008")] "ends `go infinite` by itself after depth 2";
    MatedInfiniteResigns "mated-infinite-resigns" [rule!("USI-GO-008")] "resigns at once during `go infinite` when it has no legal move";
    IgnoreMovetime "ignore-movetime" [rule!("USI-GO-009")] "searches three times as long as `movetime`";
    IgnoreSearchmoves "ignore-searchmoves" [rule!("USI-GO-010")] "ignores `searchmoves`";
    IgnoreNodeLimit "ignore-node-limit" [rule!("USI-GO-010")] "ignores `go nodes N` (searches to its depth limit)";
    CrashOnUnknownGoToken "crash-on-unknown-go-token" [rule!("USI-GO-011")] "exits with status 1 on an unknown `go` token";
    DeafWhileSearching "deaf-while-searching" [rule!("USI-GO-012"), rule!("USI-STOP-001"), rule!("USI-READY-006")] "reads no input until the search ends by itself";
    // ponder
    IllegalPonder "illegal-ponder" [rule!("USI-PONDER-001")] "sends a ponder move that is illegal after the best move";
    EarlyPonderBestmove "early-ponder-bestmove" [rule!("USI-PONDER-002")] "ends `go ponder` with `bestmove` as soon as its search finishes";
    PonderLeaksBestmove "ponder-leaks-bestmove" [rule!("USI-PONDER-002")] "ends a `go ponder` still pondering 400 ms after it started with `bestmove` (a `ponderhit` or `stop` within 400 ms is answered correctly; the scenarios that answer a ponder send theirs at 300 ms, and 100 ms apart neither order is a race)";
    PonderhitIgnored "ponderhit-ignored" [rule!("USI-PONDER-004")] "keeps pondering after `ponderhit` until `stop`";
    PonderClockIgnored "ponder-clock-ignored" [rule!("USI-PONDER-003"), rule!("USI-PONDER-004")] "ignores the clock of `go ponder`: after a plain `ponderhit` it searches without a limit";
    PonderhitClockIgnored "ponderhit-clock-ignored" [rule!("USI-EXT-015")] "ignores the clock on `ponderhit` after a `go ponder` without one, searching on without a limit";
    InstantPonderhit "instant-ponderhit" [rule!("USI-PONDER-005")] "ends every ponder search at depth 1 and holds its answer, so `ponderhit` is answered at once (allowed, noted as INFO)";
    PonderStopSilent "ponder-stop-silent" [rule!("USI-PONDER-006")] "sends no `bestmove` when `stop` ends a ponder search";
    SelfPonder "self-ponder" [rule!("USI-PONDER-007")] "keeps sending search `info` lines for 1 s after `bestmove`";
    PonderIgnoresGameover "ponder-ignores-gameover" [rule!("USI-PONDER-008")] "keeps pondering after `gameover`";
    // stop / ponderhit
    SlowStop "slow-stop" [rule!("USI-STOP-001")] "answers `stop` 2 s late";
    NoBestmoveAfterStop "no-bestmove-after-stop" [rule!("USI-STOP-001")] "sends nothing when `stop` ends a search";
    StopWhileIdleBestmove "stop-while-idle-bestmove" [rule!("USI-STOP-002"), rule!("USI-STOP-003")] "answers `stop` while idle with `bestmove resign`";
    PonderhitWhileIdleBestmove "ponderhit-while-idle-bestmove" [rule!("USI-STOP-004")] "answers `ponderhit` while idle with `bestmove resign`";
    CrashOnPonderhitArgs "crash-on-ponderhit-args" [rule!("USI-STOP-005")] "exits with status 1 on `ponderhit` with arguments";
    // bestmove
    BestmoveExtraTokens "bestmove-extra-tokens" [rule!("USI-BESTMOVE-001")] "appends `score` tokens to `bestmove`";
    IllegalBestmove "illegal-bestmove" [rule!("USI-BESTMOVE-002"), rule!("USI-BESTMOVE-007")] "sends an illegal `bestmove` (a piece moved onto its own piece or an empty square)";
    MoveWhenMated "move-when-mated" [rule!("USI-BESTMOVE-003")] "plays a king move instead of `resign` when it has no legal move";
    InvalidWin "invalid-win" [rule!("USI-BESTMOVE-004")] "declares `win` with 27 points as Black (only shows on 27-point positions)";
    DeclaresWithNinePieces "declares-with-nine-pieces" [rule!("USI-BESTMOVE-004"), rule!("USI-RULES-001")] "declares `win` with only 9 pieces in the enemy camp, where the CSA rule needs 10 (only shows on such positions)";
    EnteringKingRuleByPrefix "entering-king-rule-by-prefix" [rule!("USI-EXT-019")] "matches the `EnteringKingRule` value by prefix and so takes `CSARule27` for `CSARule27H`: declares by the handicap rule, crediting White with the pieces a handicap removed (only shows on such positions)";
    NeverDeclares "never-declares" [rule!("USI-BESTMOVE-004")] "plays on instead of declaring `win` when the declaration is valid";
    PonderAfterResign "ponder-after-resign" [rule!("USI-BESTMOVE-005")] "appends a ponder move to `bestmove resign` and `bestmove win`";
    NoFinalInfo "no-final-info" [rule!("USI-BESTMOVE-006")] "sends no `info` line at all";
    NoneToken "none-token" [rule!("USI-BESTMOVE-007")] "sends `bestmove (none)` instead of `resign`";
    // info
    InfoWhileIdle "info-while-idle" [rule!("USI-INFO-001")] "sends a search `info` line after `readyok`";
    SeldepthWithoutDepth "seldepth-without-depth" [rule!("USI-INFO-002")] "sends `seldepth` without `depth`";
    PvWithoutTime "pv-without-time" [rule!("USI-INFO-003")] "leaves `time` out of `pv` lines";
    HashfullOutOfRange "hashfull-out-of-range" [rule!("USI-INFO-004")] "reports `hashfull` above 1000";
    BadCurrmove "bad-currmove" [rule!("USI-INFO-005"), rule!("USI-INFO-013")] "sends `currmovenumber 0` and an illegal `currmove`";
    FractionalScore "fractional-score" [rule!("USI-INFO-006")] "sends `score cp` with a fraction";
    MateAsCp "mate-as-cp" [rule!("USI-INFO-006")] "sends mate scores as a huge `score cp`";
    MateInMoves "mate-in-moves" [rule!("USI-INFO-007")] "counts mate distance in moves plus one (mate-in-1 ply sent as `mate 2`)";
    MateSignFlipped "mate-sign-flipped" [rule!("USI-INFO-007")] "sends mate scores with the wrong sign";
    UnknownMateDistance "unknown-mate-distance" [rule!("USI-INFO-008")] "sends every mate score as `score mate +` (it mates) or `score mate -` (it is mated), length unknown (allowed, noted as INFO)";
    BoundBeforeScore "bound-before-score" [rule!("USI-INFO-009")] "writes `lowerbound` before `cp`";
    MultiPvIgnored "multipv-ignored" [rule!("USI-INFO-010")] "ignores the `MultiPV` setting";
    MultiPvOutOfOrder "multipv-out-of-order" [] "with MultiPV 3 or more sends each iteration's lines as `multipv 1`, `multipv 3`, `multipv 2` (then the rest), so the final lines before `bestmove` read 1, 3, 2, 1 (a quality fault: no rule orders the lines)";
    PvNotLast "pv-not-last" [rule!("USI-INFO-011")] "puts `nodes` after `pv`";
    IllegalPvMove "illegal-pv-move" [rule!("USI-INFO-011")] "puts an illegal move inside `pv`";
    StringWithPv "string-with-pv" [rule!("USI-INFO-012")] "appends `string` after the `pv` of search lines";
    ExoticInfoTokens "exotic-info-tokens" [rule!("USI-INFO-013")] "adds `cpuload` and `tbhits` fields";
    InfoFlood "info-flood" [rule!("USI-INFO-013")] "sends about 1000 `info` lines per second";
    // go mate
    MateLimitAsDistance "mate-limit-as-distance" [rule!("USI-MATE-001"), rule!("USI-MATE-005")] "reads `go mate N` as UCI does, a mate in at most N moves with no time limit: `nomate` when no such mate exists";
    MateAnsweredWithBestmove "mate-answered-with-bestmove" [rule!("USI-MATE-002"), rule!("USI-MATE-006")] "answers `go mate` with a normal search and `bestmove` (the UCI reading, with no solver and no `checkmate notimplemented`)";
    MateSearchedUntilStop "mate-searched-until-stop" [rule!("USI-MATE-002"), rule!("USI-MATE-006")] "reads `go mate N` as Fairy-Stockfish does, a mate in N moves sought by its normal search (`score cp`) with no time limit: `bestmove` once it finds one, else it searches on until `stop`";
    DoubleCheckmate "double-checkmate" [rule!("USI-MATE-002")] "sends two `checkmate` lines";
    NonMatingCheckmate "non-mating-checkmate" [rule!("USI-MATE-003")] "cuts the last move off a found mate line";
    IllegalCheckmate "illegal-checkmate" [rule!("USI-MATE-003")] "puts an illegal move first in a found mate line";
    NomateOnMate "nomate-on-mate" [rule!("USI-MATE-004")] "answers `checkmate nomate` when it found a mate";
    NomateOnTimeout "nomate-on-timeout" [rule!("USI-MATE-004")] "answers `checkmate nomate` when the time limit passes";
    SilentMateTimeout "silent-mate-timeout" [rule!("USI-MATE-005"), rule!("USI-EXT-010")] "answers nothing when its limit ends the mate search unsettled: the time of `go mate <ms>`, or the nodes of `go nodes N mate infinite`";
    MateInfiniteWaitsStop "mate-infinite-waits-stop" [rule!("USI-MATE-007")] "holds the `go mate infinite` answer until `stop`";
    MateStopBestmove "mate-stop-bestmove" [rule!("USI-MATE-008")] "answers `stop` during `go mate` with `bestmove resign`";
    RejectKinglessTsume "reject-kingless-tsume" [rule!("USI-MATE-009")] "rejects positions without the attacker's king";
    EmptyCheckmate "empty-checkmate" [rule!("USI-MATE-010")] "answers `checkmate ` with nothing after it when no mate is found";
    CheckmateNone "checkmate-none" [rule!("USI-MATE-010"), rule!("USI-EXT-017")] "answers `checkmate none` when the time limit passes";
    MateNodesIgnored "mate-nodes-ignored" [rule!("USI-EXT-010")] "ignores `nodes` in `go nodes N mate infinite`";
    // gameover
    CrashOnGameoverDraw "crash-on-gameover-draw" [rule!("USI-GAMEOVER-001")] "exits with status 1 on `gameover draw`";
    DeafAfterGameover "deaf-after-gameover" [rule!("USI-READY-005")] "ignores `isready` after `gameover`";
    ResignsAfterGameover "resigns-after-gameover" [rule!("USI-GAMEOVER-002")] "answers `readyok` after `gameover` but never leaves the finished game: every later `go` gets `bestmove resign`";
    GameoverReply "gameover-reply" [rule!("USI-GAMEOVER-003")] "answers `gameover` with a non-protocol line";
    GameoverKeepsSearching "gameover-keeps-searching" [rule!("USI-GAMEOVER-004")] "does not stop a search on `gameover`";
    CrashOnUnknownResult "crash-on-unknown-result" [rule!("USI-GAMEOVER-006")] "exits with status 1 on `gameover unknown`";
    UnknownResultKeepsGame "unknown-result-keeps-game" [rule!("USI-EXT-009")] "answers `readyok` after `gameover unknown` but never leaves the aborted game: every later `go` gets `bestmove resign` (`win`, `lose` and `draw` end a game properly)";
    // quit
    IgnoreQuit "ignore-quit" [rule!("USI-QUIT-001")] "ignores `quit`";
    QuitNeedsStop "quit-needs-stop" [rule!("USI-QUIT-002")] "ignores `quit` while searching";
    HangOnEof "hang-on-eof" [rule!("USI-QUIT-003")] "keeps running when stdin is closed";
    NonzeroExit "nonzero-exit" [rule!("USI-QUIT-004")] "exits with status 3 on `quit`";
    // robustness
    CrashOnUnknownCommand "crash-on-unknown-command" [rule!("USI-ROBUST-001")] "exits with status 1 on an unknown command";
    UnknownCommandReply "unknown-command-reply" [rule!("USI-ROBUST-001")] "answers unknown commands with `Unknown command: …`";
    StrictWhitespace "strict-whitespace" [rule!("USI-ROBUST-002")] "ignores lines with repeated or surrounding blanks";
    CarriageReturnKept "carriage-return-kept" [rule!("USI-ROBUST-003")] "keeps a trailing CR as part of the last token";
    EchoBlankLines "echo-blank-lines" [rule!("USI-ROBUST-004")] "answers a blank input line with a blank line";
    DoubleSpacedOutput "double-spaced-output" [rule!("USI-ROBUST-005"), rule!("USI-BESTMOVE-001")] "sends `readyok` with a trailing blank and double spaces in `bestmove`";
    BufferedOutput "buffered-output" [rule!("USI-ROBUST-006")] "never flushes stdout until exit";
    CrashOnBadNumber "crash-on-bad-number" [rule!("USI-ROBUST-007")] "exits with status 1 on a malformed number in `go`";
    LongGameRejected "long-game-rejected" [rule!("USI-ROBUST-008")] "rejects `position` lines with more than 300 moves";
    ChattyStdout "chatty-stdout" [rule!("USI-ROBUST-009")] "prints free text on stdout at `isready`";
    CrashOnDebug "crash-on-debug" [rule!("USI-ROBUST-010")] "exits with status 1 on the rare `debug` command";
    CrashAtThirdNewgame "crash-at-third-newgame" [rule!("USI-ROBUST-011")] "exits with status 1 at the third `usinewgame`";
    LeakPerGame "leak-per-game" [rule!("USI-ROBUST-011")] "keeps 48 MiB more memory at every `usinewgame` (only a run of games shows it: `usicheck play` samples the memory at each `gameover`)";
    SecondGameCrash "second-game-crash" [rule!("USI-ROBUST-011")] "exits with status 1 at the second `gameover`";
    // encoding
    NonAsciiOptionName "non-ascii-option-name" [rule!("USI-ENCODING-001")] "advertises an option name with non-ASCII bytes";
    ShiftJisAuthor "shift-jis-author" [rule!("USI-ENCODING-002"), rule!("USI-EXT-001")] "sends `id author` in Shift_JIS";
    ByteOrderMark "byte-order-mark" [rule!("USI-ENCODING-003")] "starts stdout with a UTF-8 byte-order mark";
    CrashOnNonAsciiValue "crash-on-non-ascii-value" [rule!("USI-ENCODING-004")] "exits with status 1 on a non-ASCII option value";
    // extensions
    SpecialTokenMidPv "special-token-mid-pv" [rule!("USI-EXT-007")] "puts `rep_draw` in the middle of a `pv`";
    PassBestmove "pass-bestmove" [rule!("USI-EXT-018"), rule!("USI-BESTMOVE-007")] "answers `bestmove pass` when in check";
    CrashOnExtendedTime "crash-on-extended-time" [rule!("USI-EXT-013")] "exits with status 1 on `bbyoyomi`/`wbyoyomi`";
    BookWithoutInfo "book-without-info" [rule!("USI-EXT-006")] "with `USI_OwnBook` on, plays its book move from the start position at once with no `info` line";
    StochasticPonderhitUntimed "stochastic-ponderhit-untimed" [rule!("USI-EXT-016")] "with `Stochastic_Ponder` on, searches the real position from `ponderhit` without a time limit (neither the clock of `go ponder` nor the `ponderhit`'s), so the answer waits for `stop`";
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `--fault` named no fault in the catalogue.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault '{0}' (see `usicheck engine --list-faults`)")]
pub struct UnknownFault(pub String);

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Fault, UnknownFault> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFault(s.to_string()))
    }
}

/// The faults switched on for one engine run.
///
/// ```
/// use usicheck::refengine::faults::{Fault, FaultSet};
/// let set = FaultSet::from_names(["pv-not-last"]).unwrap();
/// assert!(set.has(Fault::PvNotLast));
/// assert!(!set.has(Fault::NoUsiok));
/// assert!(FaultSet::from_names(["no-such-fault"]).is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultSet {
    bits: [u64; 3],
}

impl FaultSet {
    /// A conformant engine.
    pub fn none() -> FaultSet {
        FaultSet::default()
    }

    /// Parses `--fault` values.
    pub fn from_names<'a>(
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<FaultSet, UnknownFault> {
        let mut set = FaultSet::none();
        for name in names {
            set.insert(name.parse()?);
        }
        Ok(set)
    }

    /// Switches on every fault of `faults`.
    pub fn extend(&mut self, faults: impl IntoIterator<Item = Fault>) {
        for fault in faults {
            self.insert(fault);
        }
    }

    /// Switches on `fault`, and the faults it is made of.
    pub fn insert(&mut self, fault: Fault) {
        let i = fault as usize;
        self.bits[i / 64] |= 1 << (i % 64);
        for &part in fault.parts() {
            self.insert(part);
        }
    }

    /// Whether `fault` is switched on.
    #[inline]
    pub fn has(&self, fault: Fault) -> bool {
        let i = fault as usize;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }
}

impl Fault {
    /// The faults this one switches on with it: a combination of others.
    ///
    /// ```
    /// use usicheck::refengine::faults::{Fault, FaultSet};
    /// let set = FaultSet::from_names(["broken-basics"]).unwrap();
    /// assert!(Fault::BrokenBasics.parts().iter().all(|&part| set.has(part)));
    /// ```
    pub const fn parts(self) -> &'static [Fault] {
        match self {
            Fault::BrokenBasics => &[
                Fault::NoReadyok,
                Fault::RejectByoyomi,
                Fault::MirroredSfen,
                Fault::PanicOnIllegalMove,
            ],
            _ => &[],
        }
    }
}

/// The `--list-faults` line: `NAME<TAB>RULE,RULE<TAB>description`.
pub fn listing_line(fault: Fault) -> String {
    let rules: Vec<&str> = fault.rules().iter().map(|rule| rule.as_str()).collect();
    format!(
        "{}\t{}\t{}",
        fault.name(),
        rules.join(","),
        fault.description()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let mut seen = HashSet::new();
        for &f in Fault::ALL {
            assert!(seen.insert(f.name()), "duplicate {f}");
            assert!(
                f.name()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            );
            assert_eq!(f.name().parse::<Fault>(), Ok(f));
        }
        assert!(Fault::ALL.len() >= 60);
        assert!(Fault::ALL.len() <= 192, "FaultSet holds 192 bits");
    }

    #[test]
    fn every_rule_fault_names_a_rule() {
        for &f in Fault::ALL {
            assert!(
                !f.rules().is_empty() || f.description().contains("quality fault"),
                "{f}: a fault that breaks no rule says it is a quality fault"
            );
        }
    }
}
