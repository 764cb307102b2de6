//! What the GUI has sent the engine process so far, as far as blame needs it: the commands
//! since the engine's last line (what it may have died of), and whether a game command
//! (`usinewgame`, `gameover`) is one the engine already survived in this process.

use crate::usi::Command;

/// Commands since the engine's last line kept at most: a flood of input with no answer is
/// judged by its first commands as well as by its last.
const KEPT: usize = 64;

/// The commands sent to one engine process.
///
/// ```
/// use usicheck::observer::Sent;
/// use usicheck::usi::Command;
/// let mut sent = Sent::default();
/// sent.on_send(&Command::parse("gameover draw"));
/// sent.on_send(&Command::parse("quit"));
/// assert_eq!(sent.suspects(), [&Command::parse("gameover draw")]);
/// assert!(!sent.repeats_a_game_command(&Command::parse("gameover draw")));
/// sent.on_engine_line();
/// sent.on_send(&Command::parse("gameover lose"));
/// assert!(sent.repeats_a_game_command(&Command::parse("gameover lose")));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Sent {
    since_line: Vec<Command>,
    last: Option<Command>,
    newgames: u32,
    gameovers: u32,
}

impl Sent {
    pub fn on_send(&mut self, command: &Command) {
        match command {
            Command::UsiNewGame => self.newgames += 1,
            Command::GameOver(_) => self.gameovers += 1,
            _ => {}
        }
        if self.since_line.len() < KEPT {
            self.since_line.push(command.clone());
        }
        self.last = Some(command.clone());
    }

    /// The engine wrote a line: it had read what came before.
    pub fn on_engine_line(&mut self) {
        self.since_line.clear();
    }

    /// The last command sent, `None` before the first.
    pub fn last(&self) -> Option<&Command> {
        self.last.as_ref()
    }

    /// A command sent last did not reach the engine (it had ended): it cannot be what the
    /// engine died of.
    pub fn on_unsent(&mut self) {
        self.since_line.pop();
    }

    /// The commands an engine that dies now may have died of, oldest first: those since its
    /// last line that ask for work, not merely for an answer (`isready`, `stop`), the end (`quit`) or
    /// the first game (`usinewgame`, which every engine gets at once and no argument of
    /// which can be wrong); without such a command, the last command sent.
    pub fn suspects(&self) -> Vec<&Command> {
        let work: Vec<&Command> = self
            .since_line
            .iter()
            .filter(|c| match c {
                Command::IsReady | Command::Stop | Command::Quit => false,
                Command::UsiNewGame => self.newgames > 1,
                _ => true,
            })
            .collect();
        match work.is_empty() {
            true => self
                .since_line
                .last()
                .or(self.last.as_ref())
                .into_iter()
                .collect(),
            false => work,
        }
    }

    /// Whether `command` (a `usinewgame` or `gameover` sent last) was sent before in this
    /// process: an engine that dies of it now survived it once, so the number of games is
    /// the cause.
    pub fn repeats_a_game_command(&self, command: &Command) -> bool {
        match command {
            Command::UsiNewGame => self.newgames > 1,
            Command::GameOver(_) => self.gameovers > 1,
            _ => false,
        }
    }
}
