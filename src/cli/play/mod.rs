//! `usicheck play`: whole games between the engine and an opponent, refereed by the reference
//! rules, every engine line judged by the always-on checks.
//!
//! Here the flags and the match run; `human` is the terminal's report, `report_dir` the
//! files of `--report-dir`.

mod human;
mod report_dir;

use super::color::ColorFlag;
use super::format_flag;
use super::{EXIT_FAIL, EXIT_PASS, EXIT_SPRT_H0, EXIT_SPRT_UNDECIDED};
use clap::Args;
use human::{game_line, summary};
use report_dir::{Names, replay_command, write_reports};
use std::path::PathBuf;
use std::process::ExitCode;

use usicheck::engine::{EngineCommand, SearchSlots, sanitise, threads_set_by};
use usicheck::play::adjudication::{self, Draw, Resign};
use usicheck::play::stats::{Decision, Sprt};
use usicheck::play::{
    self, Book, DEFAULT_LEAK_TOLERANCE_KIB, DEFAULT_MAX_MOVES, Opening, Order, PlayerConfig,
    Settings, TimeControl, Violation, record,
};
use usicheck::report::style::{BOLD, paint};
use usicheck::report::{FailOn, Format, render_play_json, render_play_junit, render_play_summary};
use usicheck::rules::{Claims, Profile};

/// `--tc` when not given: one second of main time, 100 ms byoyomi.
pub const DEFAULT_TC: &str = "1s+100ms";

/// `--games` when neither it nor `--rounds` is given: one game with each colour.
pub const DEFAULT_GAMES: usize = 2;

/// Play games against the engine, refereed by the reference rules.
///
/// The engine plays the built-in reference engine (or `--opponent`) with colours alternating,
/// one process for all its games, as a GUI drives it: `isready` and `usinewgame` before each
/// game, `position … moves …` with the whole history, `go` with the clocks as they stand,
/// `gameover win|lose|draw`, `quit` at the end. An illegal move, a `bestmove win` the
/// 27-point rule rejects, a reply after the time left plus byoyomi or increment (plus the
/// grace G), a crash or a hang loses the game; the 4th repetition draws unless one side
/// checked with every move (it loses); the move limit draws. Every engine line is judged by
/// the always-on checks of certify; each broken rule is reported once, with its game, ply and
/// transcript. Exit 1 when the engine lost a game by its own fault or broke a rule the
/// `--fail-on` gate counts.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Time control of every game: `10s+1s` (main time plus byoyomi), `60s+1s/inc` (Fischer
    /// increment), `5m` (sudden death), `movetime=500ms`, `depth=N` or `nodes=N`.
    #[arg(long, default_value = DEFAULT_TC, value_name = "TC")]
    pub tc: TimeControl,
    /// The opponent's own time control, as `--tc` spells it (default: the engine's), so that
    /// it can play at a fixed depth or node budget while the engine plays at a clock.
    #[arg(long, value_name = "TC")]
    pub opponent_tc: Option<TimeControl>,
    /// Number of games; the engine is Black in odd-numbered games, White in even ones
    /// (default 2).
    #[arg(long, value_name = "N", conflicts_with = "rounds")]
    pub games: Option<usize>,
    /// Number of opening pairs, each played twice with colours swapped: `--games 2×N`.
    #[arg(long, value_name = "N")]
    pub rounds: Option<usize>,
    /// Start positions, one per line (`startpos [moves …]`, `sfen SFEN [moves …]` or a bare
    /// SFEN; `#` comments), each played twice with colours swapped; or a game record, whose
    /// start (a handicap too) and moves are one opening: `.kif` (Shift_JIS, or UTF-8 if it
    /// says so), `.kifu` (UTF-8), `.csa` (one opening per game); `bundled` for the start
    /// position, four common openings and the lance, bishop, rook and two-piece handicaps.
    /// Default: the start position.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<String>,
    /// The order the openings are taken in: as the file gives them, or shuffled by `--seed`.
    #[arg(long, value_enum, default_value_t = Order::Sequential, value_name = "ORDER")]
    pub opening_order: Order,
    /// Play at most N of each opening's moves.
    #[arg(long, value_name = "N")]
    pub opening_plies: Option<usize>,
    /// Random legal plies played after each opening's moves (the same for both games of a
    /// pair), for varied games between engines without a book.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub random_plies: usize,
    /// Seed of `--opening-order random` and `--random-plies` (default: drawn from the clock and
    /// printed, so a match can be played again).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Plies after which a game is drawn (USI-RULES-005); an engine declaring
    /// `MaxMovesToDraw` is set to match.
    #[arg(long, default_value_t = DEFAULT_MAX_MOVES, value_name = "N")]
    pub max_moves: usize,
    /// The opponent's program, one word, blanks kept (default: the built-in reference engine,
    /// `usicheck engine`).
    #[arg(long, value_name = "PROGRAM")]
    pub opponent: Option<String>,
    /// An argument of the opponent's program, as given (repeatable, in order).
    #[arg(long = "opponent-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub opponent_args: Vec<String>,
    /// Working directory of the opponent.
    #[arg(long, value_name = "DIR")]
    pub opponent_cwd: Option<PathBuf>,
    /// Option set in the opponent's handshake (repeatable); NAME alone presses a button.
    #[arg(long = "opponent-option", value_name = "NAME=VALUE")]
    pub opponent_options: Vec<String>,
    /// Option set in the engine's handshake (repeatable); NAME alone presses a button.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Stop the match once a sequential probability ratio test decides between
    /// `H0: elo = elo0` and `H1: elo = elo1` (the engine's Elo against the opponent):
    /// `elo0=A,elo1=B[,alpha=0.05][,beta=0.05][,model=normalized|logistic]`, fastchess's names
    /// and defaults; pentanomial over the colour-swapped pairs. Exit 0 when H1 is accepted,
    /// 3 when H0 is, 4 when --games ran out first (1 still wins for a game lost by the
    /// engine's fault or a rule broken).
    #[arg(long, value_name = "elo0=A,elo1=B,…", value_parser = Sprt::parse)]
    pub sprt: Option<Sprt>,
    /// End a game as lost for a side whose engine keeps scoring it lost, as fastchess's
    /// `-resign` does: `movecount=N,score=CP` loses it for the side whose own search scored
    /// it at or below -CP (a `score mate -…` always) for N of its moves in a row; with
    /// `twosided=true` both engines' scores count instead: when each of the last 2×N plies
    /// was scored beyond ±CP by its mover (a mate either way), the side that just moved
    /// loses if it scored itself behind. A score is the last of the search (`multipv 1`), from
    /// its engine's point of view; a search without one breaks the run. Off by default.
    #[arg(long, value_name = "movecount=N,score=CP[,twosided=true]", value_parser = Resign::parse)]
    pub adjudicate_resign: Option<Resign>,
    /// End a game as a draw, as fastchess's `-draw` does, once M plies are played (opening
    /// included; fastchess counts chess moves, a ply here is a shogi move) and both engines
    /// scored within ±CP for the last 2×N plies (a mate, or no score, breaks the run). Off by
    /// default. An adjudicated game is no engine's fault.
    #[arg(long, value_name = "movenumber=M,movecount=N,score=CP", value_parser = Draw::parse)]
    pub adjudicate_draw: Option<Draw>,
    /// Sessions at once, each with its own engine under test: here, games, each job keeping its
    /// engine and opponent processes for its games (default 1, as games are timed). Whatever
    /// the number, one search per core computes at a time, as in certify (a search's clock
    /// starts once it has its core; a ponder search takes none).
    #[arg(long, default_value_t = super::jobs::PLAY_JOBS, value_name = "N", value_parser = super::jobs::parser())]
    pub jobs: u16,
    /// The engine ponders: `USI_Ponder` set, `go ponder` on the move it predicts, `ponderhit`
    /// when the opponent plays it (the engine's clock runs from there), `stop` and a new `go`
    /// when not.
    #[arg(long)]
    pub ponder: bool,
    /// Working directory of the engine.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Profile the engine's lines are judged under, as for `certify`.
    #[arg(long, value_enum, default_value_t = Profile::Shogidokoro)]
    pub profile: Profile,
    /// The run's time (`90s`, `10m`, `1h`): no game starts after it, and the game in progress
    /// is cut short then (its engines sent `quit`, killed if they linger; the game reported
    /// as cut short, charged to neither side).
    #[arg(long, value_name = "DURATION")]
    time: Option<String>,
    /// Resident memory the engine may gain over the match, in MiB, before it counts as a leak
    /// (USI-ROBUST-011): the trend of the samples taken at every `gameover`, when it is
    /// sustained (the last third of the games all above the first third). Threads may gain 2,
    /// child processes none.
    #[arg(long, default_value_t = DEFAULT_LEAK_TOLERANCE_KIB / 1024, value_name = "MIB")]
    leak_tolerance: u64,
    /// Write every game as CSA (game-NNN.csa), KIF (game-NNN.kif in Shift_JIS, or .kifu in
    /// UTF-8: `--kif-encoding`) and USI transcripts (game-NNN.usi, game-NNN.opponent.usi) into
    /// DIR/games/, a replay scenario per broken rule into DIR/replays/, and report.json,
    /// junit.xml and report.html (results by reason, time used against time allowed per move)
    /// into DIR (created if missing). GUIs and `--openings` read the records back.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// The KIF records' encoding: `shift_jis` (cp932) in `.kif` files, as GUIs and KIF readers
    /// expect of that extension, or `utf-8` in `.kifu` files. A character Shift_JIS lacks (in
    /// an engine's name) is written `?`. CSA records are ASCII, names in Shift_JIS.
    #[arg(long, value_enum, default_value_t = record::Encoding::ShiftJis, value_name = "ENCODING")]
    kif_encoding: record::Encoding,
    /// Which broken rules make the exit code 1, as for `certify`: `must` a FAIL; `should`
    /// also a WARN on a MUST or SHOULD strength part; `any` any FAIL or WARN. A game lost by
    /// the engine's own fault always does.
    #[arg(long, value_enum, default_value_t = FailOn::Must, value_name = "LEVEL")]
    pub fail_on: FailOn,
    /// What to print on stdout: human (a line per game as it ends, the rules broken, the
    /// results by reason, the strength and the verdict), or once the match ends its
    /// report.json (docs/play-report.schema.json: games, results by reason, SPRT state),
    /// junit.xml or summary.md.
    #[arg(long, value_parser = format_flag::supported(format_flag::ALL), default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    pub color: ColorFlag,
    /// Settings file (default: the nearest usicheck.toml from the current directory up to the
    /// repository root, the first directory holding .git; the header line names the file
    /// read): its `[engine]` (command,
    /// args, cwd, options), `[certify]` `profile` and `fail-on`, as for `certify`, and its
    /// `[play]` table, a key for each of these flags; a flag given wins.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The engine and its arguments (default: the config file's engine).
    #[arg(last = true, value_name = "ENGINE")]
    pub engine: Vec<String>,
}

/// `program` and `args` as one line for the output, a word with blanks in quotes.
fn command_line(program: &str, args: &[String]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(|word| {
            if word.contains(char::is_whitespace) || word.is_empty() {
                format!("{word:?}")
            } else {
                word.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn option_flags(flags: &[String]) -> Result<Vec<(String, Option<String>)>, String> {
    flags.iter().map(|o| super::suite::option_flag(o)).collect()
}

pub fn run(args: PlayArgs) -> Result<ExitCode, String> {
    args.color.apply();
    let engine = super::suite::engine_command(&args.engine, args.cwd.as_deref())?;
    let mut opponent = match &args.opponent {
        Some(program) if program.is_empty() => return Err("--opponent: empty program".into()),
        Some(program) => EngineCommand::new(program).args(&args.opponent_args),
        None if !args.opponent_args.is_empty() => {
            return Err(
                "--opponent-arg needs --opponent (the program it is an argument of)".into(),
            );
        }
        None => {
            let me = std::env::current_exe().map_err(|e| format!("usicheck's own path: {e}"))?;
            EngineCommand::new(me).arg("engine")
        }
    };
    opponent = super::suite::in_dir(opponent, args.opponent_cwd.as_deref(), "--opponent-cwd")?;
    let games = match (args.games, args.rounds) {
        (Some(0), _) => return Err("--games 0: nothing to play".into()),
        (_, Some(0)) => return Err("--rounds 0: nothing to play".into()),
        (Some(games), _) => games,
        (None, Some(rounds)) => rounds.saturating_mul(2),
        (None, None) => DEFAULT_GAMES,
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            % 1_000_000_000
    });
    let openings = match args.openings.as_deref() {
        Some(value) => Opening::load(value)?,
        None => vec![Opening::parse("startpos")?],
    };
    let book = Book::new(
        openings,
        args.opening_order,
        seed,
        args.opening_plies,
        args.random_plies,
    );
    let mut settings = Settings {
        engine: PlayerConfig {
            command: engine,
            options: option_flags(&args.options)?,
        },
        opponent: PlayerConfig {
            command: opponent,
            options: option_flags(&args.opponent_options)?,
        },
        profile: args.profile,
        claims: Claims::default(),
        control: args.tc,
        opponent_control: args.opponent_tc,
        games,
        book,
        max_moves: args.max_moves,
        time: args
            .time
            .as_deref()
            .map(|t| usicheck::duration::flag("time", t))
            .transpose()?,
        leak_tolerance_kib: args.leak_tolerance.saturating_mul(1024),
        ponder: args.ponder,
        jobs: usize::from(args.jobs),
        search_slots: None,
        sprt: args.sprt,
        adjudication: adjudication::Rules {
            resign: args.adjudicate_resign,
            draw: args.adjudicate_draw,
        },
    };
    let threads = threads_set_by(&settings.engine.options)
        .max(threads_set_by(&settings.opponent.options))
        .unwrap_or(1);
    settings.search_slots = Some(SearchSlots::new(super::jobs::cores(), threads));
    if let Some(dir) = &args.report_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("--report-dir {}: {e}", dir.display()))?;
    }
    let engine_label = args.engine.join(" ");
    let opponent_label = match &args.opponent {
        Some(program) => command_line(program, &args.opponent_args),
        None => "usicheck engine".into(),
    };
    let opponent_at = args
        .opponent_tc
        .map_or(String::new(), |tc| format!(" at {tc}"));
    let mut extras = settings
        .book
        .seed()
        .map_or(String::new(), |seed| format!(" · seed {seed}"));
    if let Some(rule) = args.adjudicate_resign {
        extras.push_str(&format!(" · adjudicate resign {rule}"));
    }
    if let Some(rule) = args.adjudicate_draw {
        extras.push_str(&format!(" · adjudicate draw {rule}"));
    }
    if let Some(path) = &args.config {
        extras.push_str(&format!(
            " · config {}",
            sanitise(&path.display().to_string())
        ));
    }
    let human = args.format == Format::Human;
    if human {
        outln!(
            "{} · play · {games} games at {} · engine {} · opponent {}{opponent_at}{extras}",
            paint(BOLD, format!("usicheck {}", env!("CARGO_PKG_VERSION"))),
            args.tc,
            sanitise(&engine_label),
            sanitise(&opponent_label)
        );
    }
    let mut logs = Vec::new();
    let keep_logs = args.report_dir.is_some();
    let report = play::play_match(&settings, |game, engine_log, opponent_log| {
        if human {
            outln!("{}", game_line(game));
        }
        if keep_logs {
            logs.push((game.number, engine_log.to_owned(), opponent_log.to_owned()));
        }
    });
    let faults = report.faults().count();
    let counted = report
        .violations
        .iter()
        .any(|v| args.fail_on.fails(&v.verdict));
    let passed = faults == 0 && !counted;
    let replay = |v: &Violation| {
        args.report_dir
            .as_deref()
            .and_then(|dir| replay_command(dir, v, &engine_label))
    };
    match args.format {
        Format::Human => {
            super::stdout::write_styled(&summary(&report, &args, &engine_label, passed, replay))
        }
        Format::Json => write_document(render_play_json(&report, args.fail_on, passed)),
        Format::Junit => write_document(render_play_junit(&report, args.fail_on)),
        Format::Markdown => {
            write_document(render_play_summary(&report, args.fail_on, passed, replay))
        }
    }
    if let Some(dir) = &args.report_dir {
        let engine_name = report.engine_name.clone().unwrap_or(engine_label.clone());
        let opponent_name = report.opponent_name.clone().unwrap_or(opponent_label);
        let names = Names {
            engine: &engine_name,
            opponent: &opponent_name,
            engine_command: &engine_label,
        };
        write_reports(
            dir,
            &report,
            &names,
            args.kif_encoding,
            args.fail_on,
            passed,
            &logs,
        )
        .map_err(|e| format!("--report-dir {}: {e}", dir.display()))?;
    }
    Ok(ExitCode::from(
        match (passed, report.sprt.map(|s| s.decision)) {
            (false, _) => EXIT_FAIL,
            (true, None | Some(Decision::H1)) => EXIT_PASS,
            (true, Some(Decision::H0)) => EXIT_SPRT_H0,
            (true, Some(Decision::Continue)) => EXIT_SPRT_UNDECIDED,
        },
    ))
}

/// A whole document on stdout, ending its last line.
fn write_document(mut text: String) {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    super::stdout::write_stdout(&text);
}
