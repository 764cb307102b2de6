//! Which scenarios need an engine process of their own, and which may run in one an earlier
//! scenario left warm (a GUI keeps one process for many games).

use super::{Handshake, OptionSettings, Scenario, Step};

impl Scenario {
    /// Why the scenario needs a process started for it, if it does: it says so (`fresh`), it
    /// judges the start-up (`alone`), it breaks the GUI's rules on purpose, or its steps do
    /// what a warm process cannot give or would not survive unchanged: no opening
    /// `handshake` with `isready` and `usinewgame` (the warm process's own exchange), a
    /// second `usi`, options set past the handshake, raw bytes (a partial line would stay in
    /// the engine's input), stdin closed, an exit awaited, `quit`, or a process per option.
    ///
    /// ```
    /// use usicheck::scenario::load_str;
    /// let warm = "name: n\nrules: [USI-GO-002]\nsteps:\n  - handshake: {}\n  - send: position startpos\n";
    /// assert_eq!(load_str("w.yaml", warm).unwrap().fresh_process_reason(), None);
    /// let quits = format!("{warm}  - send: quit\n");
    /// assert!(load_str("q.yaml", &quits).unwrap().fresh_process_reason().is_some());
    /// ```
    pub fn fresh_process_reason(&self) -> Option<&'static str> {
        if self.fresh {
            return Some("it says `fresh: true`");
        }
        if self.alone {
            return Some("it judges the start-up (`alone: true`)");
        }
        if !self.gui_deviations.is_empty() {
            return Some("it breaks the GUI's rules on purpose");
        }
        match self.steps.split_first() {
            Some((
                Step::Handshake(Handshake {
                    isready: true,
                    usinewgame: true,
                    ..
                }),
                rest,
            )) => unfit_step(rest),
            _ => Some("it does not open with a `handshake` with `isready` and `usinewgame`"),
        }
    }

    /// The options the scenario's opening `handshake` sets, if it opens with one: a process
    /// whose handshake set others does not fit it.
    pub fn opening_options(&self) -> Option<&OptionSettings> {
        match self.steps.first() {
            Some(Step::Handshake(handshake)) => Some(&handshake.options),
            _ => None,
        }
    }
}

/// The first reason a step among `steps` (and those they hold) needs a fresh process.
fn unfit_step(steps: &[Step]) -> Option<&'static str> {
    steps.iter().find_map(|step| match step {
        Step::Handshake(_) => Some("it shakes hands again"),
        Step::Send(line) => {
            let text = line.to_string();
            match text.split_whitespace().next() {
                Some("usi") => Some("it sends `usi` again"),
                Some("setoption") => Some("it sets options past the handshake"),
                Some("quit") => Some("it sends `quit`"),
                _ => None,
            }
        }
        Step::SendRaw(_) => Some("it sends raw bytes"),
        Step::CloseStdin => Some("it closes the engine's stdin"),
        Step::ExpectExit(_) => Some("it awaits the engine's exit"),
        Step::ForEachOption(_) => Some("it starts a process per option"),
        Step::Repeat(repeat) => unfit_step(&repeat.steps),
        Step::Expect(_) | Step::ExpectSilence(_) | Step::Sleep(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario::{BUNDLED, load_str};

    fn reason(name: &str) -> Option<&'static str> {
        let (_, yaml) = BUNDLED.iter().find(|(n, _)| *n == name).expect("bundled");
        load_str(name, yaml).unwrap().fresh_process_reason()
    }

    #[test]
    fn start_ups_exits_and_deliberate_breaches_need_a_process_of_their_own() {
        for name in [
            "01-handshake/id-author",
            "03-ready/initialise-at-isready",
            "03-ready/no-usinewgame",
            "12-quit/quit-when-idle",
            "12-quit/stdin-eof",
            "13-robust/crlf-input",
            "07-stop/stop-when-idle",
        ] {
            assert!(reason(name).is_some(), "{name} may run warm");
        }
    }

    #[test]
    fn games_after_a_plain_handshake_may_run_warm() {
        for name in ["05-go/one-bestmove-per-go", "13-robust/many-games"] {
            assert_eq!(reason(name), None, "{name}");
        }
        let (_, yaml) = BUNDLED
            .iter()
            .find(|(n, _)| *n == "05-go/one-bestmove-per-go")
            .unwrap();
        let marked = yaml.replacen("steps:", "fresh: true\nsteps:", 1);
        let scenario = load_str("marked.yaml", &marked).unwrap();
        assert_eq!(
            scenario.fresh_process_reason(),
            Some("it says `fresh: true`")
        );
    }
}
