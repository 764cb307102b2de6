//! Judging what the engine wrote: each line fed to the observer, its newly violated rules
//! turned into violations (noted, counted as known, or ending the session), and the
//! engine's death described.

use crate::engine::{Line, Stream, Termination, sanitise};
use crate::fuzzer::known::Known;
use crate::fuzzer::oracle::{Oracle, Violation};
use crate::fuzzer::transport::Transport;
use crate::observer::{CLOCK_RULES, GoKind};
use crate::rules::{Outcome, RuleId};

use super::{Run, Step};

impl<'a, T: Transport> Run<'a, T> {
    /// Feeds a line to the observer and turns what it newly charged into violations.
    pub(super) fn judge(&mut self, line: Line) -> Step {
        let step = if line.stream == Stream::Stdout {
            self.stdout_seen = true;
            if let Some(released) = &mut self.released
                && line.text.starts_with("info ")
                && !line.text.starts_with("info string")
            {
                released.last_info = Some((line.at_micros, line.text.clone()));
            }
            let owed_kind = self.observer.protocol().owed_search();
            let owed = owed_kind.is_some();
            let checkmate = line.text.split_whitespace().next() == Some("checkmate");
            let terminal = checkmate || line.text.split_whitespace().next() == Some("bestmove");
            let wrong_kind =
                terminal && owed_kind.is_some_and(|kind| checkmate != (kind == GoKind::Mate));
            self.observer.on_line(&line, None);
            if self.observer.protocol().search_kind().is_none() {
                self.released = None;
            }
            self.cores.update(self.observer.protocol().computing());
            if owed && self.observer.protocol().owed_search().is_none() {
                self.answered += 1;
            }
            self.collect(wrong_kind)
        } else {
            Ok(())
        };
        self.last_message = Some(line.text);
        step
    }

    /// The observer's violations not seen before (a WARN or FAIL under the profile): those
    /// that leave the protocol in step are noted and the session goes on; the first of the
    /// others, the most certain oracle first, ends it, and the rest are noted. `wrong_kind`:
    /// the line was a terminal reply of the wrong kind for the search it answered
    /// ([`crate::blame::one_line`]).
    fn collect(&mut self, wrong_kind: bool) -> Step {
        let judge = self.observer.judge();
        let mut fresh: Vec<(Oracle, RuleId, String, Outcome)> = judge
            .violated_rules()
            .into_iter()
            .filter_map(|rule| judge.verdict(rule))
            .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn))
            .filter(|v| !self.seen.contains(&v.rule))
            .filter(|v| self.judge_clock || !CLOCK_RULES.contains(&v.rule))
            .map(|v| (Oracle::of(v.rule), v.rule, v.reason.clone(), v.outcome))
            .collect();
        fresh.sort_by_key(|(oracle, ..)| *oracle);
        let mut fatal = None;
        for (oracle, rule, detail, outcome) in fresh {
            self.seen.insert(rule);
            if !crate::blame::one_line(rule, wrong_kind) {
                continue;
            }
            let violation = Violation {
                outcome: Some(outcome),
                ..self.violation(oracle, rule, detail)
            };
            if oracle == Oracle::Output {
                self.noted.push(violation);
            } else if self.known.contains(&violation) && Known::recoverable(&violation) {
                // The reply came (wrong, late or doubled): the exchange is still readable.
                self.known_met.push(violation);
            } else if fatal.is_none() {
                fatal = Some(violation);
            } else {
                // Another rule the same line broke (an illegal move that is no move at all
                // breaks USI-BESTMOVE-002 and USI-BESTMOVE-007): charged as the runner and
                // `play` charge it, though the session ends with the first.
                self.noted.push(violation);
            }
        }
        fatal.map_or(Ok(()), |v| Err(self.fatal(v)))
    }

    /// The engine ended before `quit`: a crash on a signal, otherwise a controlled exit.
    pub(super) fn exited(&self, termination: Termination) -> Violation {
        let rule = crate::blame::death(&self.observer).rule;
        let said = self
            .last_message
            .as_deref()
            .map(|m| format!(", last line `{}`", sanitise(m)))
            .unwrap_or_default();
        let last_text = match (self.last_sent, &self.handshake_option) {
            (Some(cmd), _) => cmd.text.as_str(),
            (None, Some(line)) => line.as_str(),
            (None, None) => "",
        };
        let after = format!("after `{}`", sanitise(last_text.trim_end()));
        match termination {
            Termination::Signalled { .. } => {
                self.violation(Oracle::Crash, rule, format!("{termination} {after}{said}"))
            }
            Termination::Exited(_) => {
                self.violation(Oracle::Exit, rule, format!("{termination} {after}{said}"))
            }
        }
    }
}
