//! GUI → engine commands.

use super::go::{Clock, Go};
use super::lex::{Tokens, strip_line_ending};
use super::position::PositionCommand;
use std::fmt;

/// A command the GUI sends to the engine.
///
/// [`Command::parse`] reads a line the way a lenient engine would (any blanks between tokens,
/// CR/LF stripped, malformed arguments ignored) and never fails: a line it cannot read is kept
/// verbatim as [`Command::Raw`], which is also how the fuzzer sends arbitrary lines. Like
/// Stockfish-family engines it reads only the tokens it needs, so `isready now` is `isready`.
/// `Display` writes the canonical form, single-spaced, without a line terminator.
///
/// ```
/// use usicheck::usi::{Command, GameResult};
/// assert_eq!(Command::parse(" isready \r\n"), Command::IsReady);
/// assert_eq!(Command::parse("gameover win"), Command::GameOver(GameResult::Win));
/// let cmd = Command::parse("setoption name EvalDir value C:/my evals/");
/// assert_eq!(cmd, Command::SetOption { name: "EvalDir".into(), value: Some("C:/my evals/".into()) });
/// assert_eq!(cmd.to_string(), "setoption name EvalDir value C:/my evals/");
/// assert_eq!(Command::parse("joho debug on"), Command::Raw("joho debug on".into()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    Usi,
    /// `debug`, `debug on` (`Some(true)`) or `debug off` (`Some(false)`).
    Debug(Option<bool>),
    IsReady,
    /// `setoption name <id> [value <x>]`. `value: None` is the value-less button form;
    /// `Some("")` is sent as `value` with nothing after it (USI-OPTION-008).
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register(Register),
    UsiNewGame,
    Position(PositionCommand),
    Go(Go),
    Stop,
    /// `ponderhit`, optionally with the clock (USI-EXT-015).
    PonderHit(Clock),
    GameOver(GameResult),
    Quit,
    /// A line that is not a known command, kept verbatim (without its line terminator).
    Raw(String),
}

/// The arguments of `register`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Register {
    /// `register` alone.
    Bare,
    /// `register later`.
    Later,
    /// `register name <name> code <code>`.
    Credentials { name: String, code: String },
}

/// The result word of `gameover`, from the engine's point of view.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    Win,
    Lose,
    Draw,
    /// USI 2.0 `gameover unknown` for aborted games (USI-EXT-009).
    Unknown,
    /// Any other word (engines must tolerate them, USI-GAMEOVER-006).
    Other(String),
}

impl GameResult {
    pub fn as_str(&self) -> &str {
        match self {
            GameResult::Win => "win",
            GameResult::Lose => "lose",
            GameResult::Draw => "draw",
            GameResult::Unknown => "unknown",
            GameResult::Other(word) => word,
        }
    }
}

impl Command {
    /// Reads one line; never panics, never fails.
    pub fn parse(line: &str) -> Command {
        let line = strip_line_ending(line);
        let mut tokens = Tokens::new(line);
        let parsed = match tokens.next() {
            Some("usi") => Some(Command::Usi),
            Some("isready") => Some(Command::IsReady),
            Some("usinewgame") => Some(Command::UsiNewGame),
            Some("stop") => Some(Command::Stop),
            Some("quit") => Some(Command::Quit),
            Some("debug") => Some(Command::Debug(match tokens.next() {
                Some("on") => Some(true),
                Some("off") => Some(false),
                _ => None,
            })),
            Some("setoption") => parse_setoption(tokens),
            Some("register") => Some(Command::Register(parse_register(tokens))),
            Some("position") => PositionCommand::parse_args(tokens).map(Command::Position),
            Some("go") => Some(Command::Go(Go::parse_args(tokens))),
            Some("ponderhit") => Some(Command::PonderHit(Clock::parse_args(tokens))),
            Some("gameover") => tokens.next().map(|word| {
                Command::GameOver(match word {
                    "win" => GameResult::Win,
                    "lose" => GameResult::Lose,
                    "draw" => GameResult::Draw,
                    "unknown" => GameResult::Unknown,
                    other => GameResult::Other(other.to_string()),
                })
            }),
            _ => None,
        };
        parsed.unwrap_or_else(|| Command::Raw(line.to_string()))
    }

    /// `setoption name <name> value <value>`.
    pub fn set_option(name: impl Into<String>, value: impl fmt::Display) -> Command {
        Command::SetOption {
            name: name.into(),
            value: Some(value.to_string()),
        }
    }
}

/// The name runs up to `value` (joined by single spaces, as UCI allows); the value is the rest of
/// the line with its inner blanks intact.
fn parse_setoption(mut tokens: Tokens<'_>) -> Option<Command> {
    if tokens.next() != Some("name") {
        return None;
    }
    let mut name = String::new();
    let mut value = None;
    while let Some(tok) = tokens.next() {
        if tok == "value" {
            value = Some(tokens.rest().to_string());
            break;
        }
        if !name.is_empty() {
            name.push(' ');
        }
        name.push_str(tok);
    }
    Some(Command::SetOption { name, value })
}

fn parse_register(tokens: Tokens<'_>) -> Register {
    match tokens.peek() {
        None => Register::Bare,
        Some("later") => Register::Later,
        Some(_) => {
            let (mut name, mut code) = (String::new(), String::new());
            let mut field = None;
            for tok in tokens {
                match tok {
                    "name" => field = Some(&mut name),
                    "code" => field = Some(&mut code),
                    word => {
                        if let Some(text) = field.as_deref_mut() {
                            if !text.is_empty() {
                                text.push(' ');
                            }
                            text.push_str(word);
                        }
                    }
                }
            }
            Register::Credentials { name, code }
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Usi => f.write_str("usi"),
            Command::Debug(None) => f.write_str("debug"),
            Command::Debug(Some(true)) => f.write_str("debug on"),
            Command::Debug(Some(false)) => f.write_str("debug off"),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption { name, value } => {
                f.write_str("setoption name")?;
                if !name.is_empty() {
                    write!(f, " {name}")?;
                }
                match value.as_deref() {
                    None => Ok(()),
                    Some("") => f.write_str(" value"),
                    Some(v) => write!(f, " value {v}"),
                }
            }
            Command::Register(Register::Bare) => f.write_str("register"),
            Command::Register(Register::Later) => f.write_str("register later"),
            Command::Register(Register::Credentials { name, code }) => {
                write!(f, "register name {name} code {code}")
            }
            Command::UsiNewGame => f.write_str("usinewgame"),
            Command::Position(position) => write!(f, "{position}"),
            Command::Go(go) => write!(f, "{go}"),
            Command::Stop => f.write_str("stop"),
            Command::PonderHit(clock) => write!(f, "ponderhit{clock}"),
            Command::GameOver(result) => write!(f, "gameover {}", result.as_str()),
            Command::Quit => f.write_str("quit"),
            Command::Raw(line) => f.write_str(line),
        }
    }
}
