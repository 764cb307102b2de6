//! `usicheck init -- ENGINE ARGS…`: a starter usicheck.toml from the engine's handshake
//! (`usi` → `id`, `option`… → `usiok`, then `quit`): the engine command, its working directory
//! and the timeouts given to `init`, every option it declared commented out with its default,
//! and the other settings commented with theirs.

use super::config::{self, DEFAULT_PATH};
use super::jobs::{MAX_DEFAULT_JOBS, SCENARIOS_PER_CORE};
use super::timeout_flags::TimeoutFlags;
use clap::{Args, ValueEnum};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use toml_writer::{ToTomlKey, ToTomlValue, TomlKeyBuilder, TomlStringBuilder};
use usicheck::engine::{
    Arrival, EngineCommand, Event, Session, SessionOptions, Stream, Timeouts, Wait, sanitise,
};
use usicheck::report::FailOn;
use usicheck::rules::Profile;
use usicheck::usi::{Message, OptionDecl, OptionKind};

/// Write a starter usicheck.toml from an engine's handshake: `usicheck init -- ENGINE ARGS…`.
///
/// Asks the engine for its options (`usi` … `usiok`, then `quit`) and writes its command line,
/// its working directory and the timeouts given here, each option commented out with its
/// default and type, and the other settings commented with their defaults. Relative paths in
/// the file are relative to its directory. Its result is the file (docs/config.md), so no
/// `--format`.
#[derive(Args, Debug)]
pub struct InitArgs {
    /// The file to write.
    #[arg(long, value_name = "FILE", default_value = DEFAULT_PATH)]
    pub output: PathBuf,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    pub force: bool,
    /// Working directory of the engine, for the handshake here and, as `[engine]` `cwd`, in
    /// the file; a relative ENGINE path is inside it, as for `certify --cwd`.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Written into `[timeouts]`; usiok and quit also bound the handshake here (which sends no
    /// `isready`).
    #[command(flatten)]
    pub timeouts: TimeoutFlags,
    /// The engine command line.
    #[arg(last = true, required = true, value_name = "ENGINE ARGS")]
    pub engine: Vec<String>,
}

/// What the engine said about itself before `usiok`.
#[derive(Debug, Default)]
struct Handshake {
    name: Option<String>,
    author: Option<String>,
    /// Each name once, in the order declared.
    options: Vec<OptionDecl>,
}

/// What `init`'s flags put into the file, each as the file says it.
#[derive(Debug, Default)]
struct Given {
    /// `[engine]` `cwd`, relative to the file's directory.
    cwd: Option<String>,
    /// `[timeouts]` `usiok`, `ready` and `quit`, as given.
    usiok: Option<String>,
    ready: Option<String>,
    quit: Option<String>,
}

pub fn run(args: InitArgs) -> Result<ExitCode, String> {
    let place = args.output.display();
    if args.output.exists() && !args.force {
        return Err(format!("{place}: already exists (--force overwrites it)"));
    }
    let cwd = args.cwd.as_deref();
    if let Some(dir) = cwd
        && !dir.is_dir()
    {
        return Err(format!("--cwd {}: not a directory", dir.display()));
    }
    let given_timeouts = args.timeouts.parsed()?;
    let mut timeouts = Timeouts::default();
    timeouts.usiok = given_timeouts.usiok.unwrap_or(timeouts.usiok);
    timeouts.quit = given_timeouts.quit.unwrap_or(timeouts.quit);
    let command = command_in_file(&args.engine[0], cwd, &args.output)?;
    let given = Given {
        cwd: match cwd {
            Some(dir) => Some(path_in_file(dir, &args.output)?.display().to_string()),
            None => None,
        },
        usiok: args.timeouts.usiok_timeout.clone(),
        ready: args.timeouts.ready_timeout.clone(),
        quit: args.timeouts.quit_timeout.clone(),
    };
    let handshake = handshake(&args.engine, cwd, timeouts)?;
    let text = starter(&command, &args.engine[1..], &given, &handshake);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .create_new(!args.force)
        .truncate(true)
        .open(&args.output)
        .map_err(|e| format!("{place}: cannot write: {e}"))?;
    file.write_all(text.as_bytes())
        .map_err(|e| format!("{place}: cannot write: {e}"))?;
    let reads_it = if args.output == Path::new(DEFAULT_PATH) {
        "`usicheck certify` reads it".to_owned()
    } else {
        format!("`usicheck certify --config {place}` reads it")
    };
    outln!(
        "wrote {place} with the engine's {} options commented out; {reads_it}",
        handshake.options.len()
    );
    Ok(ExitCode::from(super::EXIT_PASS))
}

/// The engine command as the file must say it: a bare name as given (looked up on PATH), a
/// relative path (inside `cwd` when given, as the engine is started) relative to the file's
/// directory, see [`path_in_file`].
fn command_in_file(command: &str, cwd: Option<&Path>, output: &Path) -> Result<String, String> {
    if !command.contains('/') || Path::new(command).is_absolute() {
        return Ok(command.to_owned());
    }
    let program = cwd.map_or_else(|| PathBuf::from(command), |dir| dir.join(command));
    let path = path_in_file(&program, output)?;
    // One component would read as a name to look up on PATH.
    Ok(match path.components().count() {
        1 if path.is_relative() => format!("./{}", path.display()),
        _ => path.display().to_string(),
    })
}

/// A path given relative to the current directory as the file must say it, relative to the
/// file's directory: as given (without `.` components) when the file is in the current
/// directory, else absolute.
fn path_in_file(path: &Path, output: &Path) -> Result<PathBuf, String> {
    let here = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let file_dir = std::path::absolute(output)
        .map_err(|e| format!("{}: {e}", output.display()))?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    if file_dir != here {
        return Ok(config::under(&here, path));
    }
    let path = config::under(Path::new(""), path);
    Ok(match path.as_os_str().is_empty() {
        true => PathBuf::from("."),
        false => path,
    })
}

/// Plays `usi` → `usiok` within T-USIOK and ends the engine: `quit` within T-QUIT after a
/// handshake, its process group killed at once after a failed one (the session's drop).
fn handshake(argv: &[String], cwd: Option<&Path>, timeouts: Timeouts) -> Result<Handshake, String> {
    let mut command = EngineCommand::new(&argv[0]).args(&argv[1..]);
    if let Some(dir) = cwd {
        command = command.current_dir(dir);
    }
    let mut session = Session::start(&command, SessionOptions::default())
        .map_err(|e| format!("cannot start the engine: {e}"))?;
    let handshake = read_handshake(&mut session, timeouts)?;
    session.quit(timeouts.quit);
    Ok(handshake)
}

fn read_handshake(session: &mut Session, timeouts: Timeouts) -> Result<Handshake, String> {
    // An engine that cannot be sent `usi` has ended or does not read: said below.
    let _ = session.send("usi");
    let mut wait = Wait::until(session, Instant::now() + timeouts.usiok);
    let no_usiok = || {
        format!(
            "the engine did not answer `usi` with `usiok` within {}",
            humantime::format_duration(timeouts.usiok)
        )
    };
    let mut handshake = Handshake::default();
    loop {
        // A line read after the deadline ends the wait unanswered, as everywhere ([`Wait`]).
        let line = match wait.next(session) {
            Arrival::OnTime(Event::Line(line)) if line.stream == Stream::Stdout => line,
            Arrival::OnTime(_) => continue,
            Arrival::Over => {
                return Err("the engine ended before it answered `usi` with `usiok`".into());
            }
            Arrival::Late(_) | Arrival::Deadline => return Err(no_usiok()),
        };
        match Message::parse(&line.text).0 {
            Message::UsiOk => return Ok(handshake),
            Message::IdName(name) => handshake.name = Some(name),
            Message::IdAuthor(author) => handshake.author = Some(author),
            Message::Option(option) if !handshake.options.iter().any(|o| o.name == option.name) => {
                handshake.options.push(option);
            }
            _ => {}
        }
    }
}

/// A TOML key: bare when it can be, else quoted and escaped.
fn key(name: &str) -> String {
    TomlKeyBuilder::new(name).as_default().to_toml_key()
}

/// A one-line TOML string, escaped.
fn string(text: &str) -> String {
    TomlStringBuilder::new(text).as_basic().to_toml_value()
}

/// The names of a `clap::ValueEnum`, as "a, b or c".
fn choices<T: ValueEnum>() -> String {
    let names: Vec<String> = T::value_variants()
        .iter()
        .filter_map(|v| v.to_possible_value())
        .map(|v| v.get_name().to_owned())
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `KEY = VALUE  # note`, commented out with the default when not `given`.
fn setting(key: &str, given: Option<&str>, default: &str, note: &str) -> String {
    match given {
        Some(value) => format!("{key} = {}  # {note}\n", string(value)),
        None => format!("# {key} = {}  # {note}\n", string(default)),
    }
}

/// The text of the starter file.
fn starter(command: &str, args: &[String], given: &Given, handshake: &Handshake) -> String {
    let mut out = String::new();
    let engine = match (&handshake.name, &handshake.author) {
        (Some(name), Some(author)) => format!("{} by {}", sanitise(name), sanitise(author)),
        (Some(name), None) => sanitise(name).into_owned(),
        (None, Some(author)) => format!("an engine by {}", sanitise(author)),
        (None, None) => "an engine without `id name`".to_owned(),
    };
    let _ = writeln!(
        out,
        "# usicheck.toml: the engine and settings of `usicheck certify`, `run`, `fuzz` and `play`.\n\
         # Written by `usicheck init` from the handshake of {engine}.\n\
         # A flag on the command line wins over this file (`--option` per NAME), and an engine\n\
         # after `--` replaces `command` and `args`. Relative paths are relative to this file's\n\
         # directory.\n"
    );
    let args: Vec<String> = args.iter().map(|a| string(a)).collect();
    let _ = writeln!(
        out,
        "[engine]\n\
         command = {}\n\
         args = [{}]\n\
         {}\
         # engine-define = \"engine_define.xml\"  # the extensions it claims (default: the \
         one beside the binary)\n\
         # claims = []  # vendor extensions engine_define.xml cannot name, by rule ID\n",
        string(command),
        args.join(", "),
        setting(
            "cwd",
            given.cwd.as_deref(),
            ".",
            "working directory of the engine (default: usicheck's)"
        ),
    );
    out.push_str(
        "[engine.options]\n\
         # Sent with `setoption` before `isready` in every session: uncomment to set.\n",
    );
    if handshake.options.is_empty() {
        out.push_str("# (the engine declared no options)\n");
    }
    for option in &handshake.options {
        out.push_str(&option_line(option));
        out.push('\n');
    }
    let timeouts = Profile::default().timeouts();
    let duration = |d| humantime::format_duration(d).to_string();
    let _ = write!(
        out,
        "\n[certify]\n\
         # For `usicheck certify` and `run`; `profile` and `fail-on` also for `fuzz`.\n\
         # profile = {profile}  # {profiles}: the reading of the specification\n\
         # jobs = {MAX_DEFAULT_JOBS}  # sessions at once, each with its own engine: scenarios \
         (default: {SCENARIOS_PER_CORE} per core, at most {MAX_DEFAULT_JOBS})\n\
         # fail-on = {fail_on}  # {fail_ons}: what fails the gate (exit code 1)\n\
         # baseline = \"usicheck-baseline.tsv\"  # accepted deviations (write one with \
         --write-baseline)\n\
         # report-dir = \"usicheck-report\"  # also write report.html, report.json, junit.xml, \
         summary.md\n\
         \n\
         [timeouts]\n\
         {usiok}\
         {ready}\
         {quit}\
         \n\
         [play]\n\
         # For `usicheck play`: a key for each of its flags, by the flag's name.\n\
         # tc = {tc}  # every game's time control (`60s+1s/inc`, `movetime=500ms`, \
         `depth=N`, `nodes=N`)\n\
         # opponent-tc = \"depth=1\"  # the opponent's own (default: tc)\n\
         # games = {games}  # or `rounds = N`: N opening pairs, colours swapped\n\
         # openings = \"bundled\"  # a file of start positions (default: the start position)\n\
         # opening-order = \"sequential\"  # or \"random\", shuffled by `seed`\n\
         # opening-plies = 8  # play at most this many of each opening's moves\n\
         # random-plies = 0  # random legal plies after each opening\n\
         # seed = 1  # of the random order and plies (default: drawn and printed)\n\
         # max-moves = {max_moves}  # plies after which a game is drawn\n\
         # opponent = \"/path/to/last-release\"  # its program, one word (default: the \
         built-in engine)\n\
         # opponent-args = []  # its arguments\n\
         # opponent-cwd = \".\"  # its working directory\n\
         # opponent-options = {{ USI_Hash = 16 }}  # set in its handshake\n\
         # jobs = 1  # sessions at once, each with its own engine: games\n\
         # sprt = \"elo0=0,elo1=10\"  # stop once the test decides (exit 0 H1, 3 H0, 4 \
         undecided)\n\
         # adjudicate-resign = \"movecount=3,score=1000\"  # as fastchess's -resign\n\
         # adjudicate-draw = \"movenumber=80,movecount=8,score=10\"  # as fastchess's -draw\n\
         # ponder = false  # the engine ponders\n\
         # report-dir = \"usicheck-play-report\"  # records, report.json, report.html\n",
        profile = string(Profile::default().as_str()),
        profiles = choices::<Profile>(),
        fail_on = string(FailOn::default().as_str()),
        fail_ons = choices::<FailOn>(),
        usiok = setting(
            "usiok",
            given.usiok.as_deref(),
            &duration(timeouts.usiok),
            "how long `usi` may take to answer"
        ),
        ready = setting(
            "ready",
            given.ready.as_deref(),
            &duration(timeouts.ready_silence),
            "silence allowed while `isready` is pending"
        ),
        quit = setting(
            "quit",
            given.quit.as_deref(),
            &duration(timeouts.quit),
            "how long the engine may take to exit after `quit`"
        ),
        max_moves = usicheck::play::DEFAULT_MAX_MOVES,
        tc = string(super::play::DEFAULT_TC),
        games = super::play::DEFAULT_GAMES,
    );
    out
}

/// `# NAME = DEFAULT  # type, range or choices`; a comment only for what cannot be set.
fn option_line(option: &OptionDecl) -> String {
    let type_name = sanitise(option.kind.type_name());
    if !config::is_settable_here(&option.name) {
        return format!(
            "# {}  # {type_name}: cannot be set (the name has whitespace or `=`)",
            sanitise(&option.name)
        );
    }
    let (value, note) = match &option.kind {
        OptionKind::Check { default } => (
            default.unwrap_or(false).to_string(),
            default_note(default.is_some()),
        ),
        OptionKind::Spin { default, min, max } => {
            let range = match (min, max) {
                (Some(min), Some(max)) => format!(", {min}..{max}"),
                (Some(min), None) => format!(", min {min}"),
                (None, Some(max)) => format!(", max {max}"),
                (None, None) => String::new(),
            };
            let value = default.or(*min).unwrap_or(0);
            (value.to_string(), range + &default_note(default.is_some()))
        }
        OptionKind::Combo { default, vars } => {
            let vars: Vec<String> = vars.iter().map(|v| sanitise(v).into_owned()).collect();
            (
                string(default.as_deref().unwrap_or_default()),
                format!(": {}{}", vars.join(" / "), default_note(default.is_some())),
            )
        }
        OptionKind::String { default } | OptionKind::Filename { default } => (
            string(default.as_deref().unwrap_or_default()),
            default_note(default.is_some()),
        ),
        OptionKind::Button => {
            return format!(
                "# {}  # button: press it with --option {}",
                sanitise(&option.name),
                sanitise(&option.name)
            );
        }
        OptionKind::Other { .. } => {
            return format!(
                "# {}  # {type_name}: not a USI option type",
                sanitise(&option.name)
            );
        }
    };
    format!("# {} = {value}  # {type_name}{note}", key(&option.name))
}

fn default_note(declared: bool) -> String {
    if declared {
        String::new()
    } else {
        ", no default declared".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(line: &str) -> OptionDecl {
        match Message::parse(line).0 {
            Message::Option(option) => option,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn hostile() -> Handshake {
        Handshake {
            name: Some("Evil\u{1b}[2J\u{7f} \"engine\"\r".to_owned()),
            author: Some("a\u{0}b".to_owned()),
            options: [
                "option name USI_Hash type spin default 256 min 1 max 1024",
                "option name Ponder\"x type check default true",
                "option name Eval.Dir type string default ev\"al\\\u{1}",
                "option name Style type combo default Normal var Solid var Normal var Risky\u{7}",
                "option name Clear_Hash type button",
                "option name Odd type colour",
                "option name Empty type string default <empty>",
                "option name Bare type spin",
                "option name a=b type string default x",
            ]
            .iter()
            .map(|l| option(l))
            .collect(),
        }
    }

    #[test]
    fn the_starter_file_parses_and_each_option_line_parses_uncommented() {
        let text = starter(
            "./my \"engine\"",
            &["--x\n".to_owned()],
            &Given::default(),
            &hostile(),
        );
        let table: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(table["engine"]["command"].as_str(), Some("./my \"engine\""));
        assert_eq!(table["engine"]["args"][0].as_str(), Some("--x\n"));
        let mut set = 0;
        for line in text.lines() {
            let Some(setting) = line.strip_prefix("# ") else {
                continue;
            };
            if setting.contains(" = ") {
                let parsed: toml::Table =
                    toml::from_str(setting).unwrap_or_else(|e| panic!("{setting}: {e}"));
                assert_eq!(parsed.len(), 1, "{setting}");
                set += 1;
            }
        }
        // 6 options that can be set, 3 engine keys, 5 certify keys, 3 timeouts, 19 play keys.
        assert_eq!(set, 6 + 3 + 5 + 3 + 19, "{text}");
        assert!(
            text.contains("# USI_Hash = 256  # spin, 1..1024\n"),
            "{text}"
        );
        assert!(text.contains("# Empty = \"\"  # string\n"), "{text}");
        assert!(
            text.contains("# Bare = 0  # spin, no default declared\n"),
            "{text}"
        );
        assert!(text.contains("# Clear_Hash  # button"), "{text}");
        assert!(text.contains("# a=b  # string: cannot be set"), "{text}");
        assert!(
            !text.contains(['\u{1b}', '\u{7f}', '\u{0}', '\r']),
            "{text}"
        );
    }

    #[test]
    fn the_flags_given_are_set_and_the_rest_commented() {
        let given = Given {
            cwd: Some("engines".to_owned()),
            usiok: Some("2s".to_owned()),
            quit: Some("500ms".to_owned()),
            ..Given::default()
        };
        let text = starter("./engine", &[], &given, &Handshake::default());
        let table: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(table["engine"]["cwd"].as_str(), Some("engines"));
        let timeouts = table["timeouts"].as_table().unwrap();
        assert_eq!(timeouts["usiok"].as_str(), Some("2s"));
        assert_eq!(timeouts["quit"].as_str(), Some("500ms"));
        assert!(!timeouts.contains_key("ready"), "{text}");
        assert!(text.contains("\n# ready = \"30s\"  # silence"), "{text}");
    }

    #[test]
    fn paths_are_the_files_and_the_engine_is_inside_cwd() {
        let here = Path::new("usicheck.toml");
        let cwd = Some(Path::new("./engines"));
        assert_eq!(command_in_file("./e", None, here).unwrap(), "./e");
        assert_eq!(command_in_file("./e", cwd, here).unwrap(), "engines/e");
        assert_eq!(command_in_file("e", cwd, here).unwrap(), "e");
        assert_eq!(command_in_file("/bin/e", cwd, here).unwrap(), "/bin/e");
        assert_eq!(path_in_file(Path::new("."), here).unwrap(), Path::new("."));
        let elsewhere = std::env::temp_dir().join("usicheck.toml");
        let current = std::env::current_dir().unwrap();
        assert_eq!(
            command_in_file("./e", cwd, &elsewhere).unwrap(),
            current.join("engines/e").display().to_string()
        );
    }

    #[test]
    fn the_starter_file_loads_as_a_config() {
        let text = starter("my-engine", &[], &Given::default(), &hostile());
        let uncommented: String = text
            .lines()
            .map(|l| {
                l.strip_prefix("# ")
                    .filter(|s| s.contains(" = "))
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n");
        let dir = std::env::temp_dir().join(format!("usicheck-init-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in [
            ("commented.toml", &text),
            ("uncommented.toml", &uncommented),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            if let Err(e) = config::load(&path) {
                panic!("{e}\n{text}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
